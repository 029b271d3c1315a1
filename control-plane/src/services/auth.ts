// Accounts: signup, login (with two-factor), refresh, logout, profile and password.
import { authenticator } from 'otplib';
import QRCode from 'qrcode';
import crypto from 'node:crypto';
import { LIMITS, MESSAGES, type AuthResult, type Profile, type TwoFactorSetup, type User } from '@upfleet/proto/rest';
import { TwoFactorCode, check, type LoginBody, type PasswordChangeBody, type ProfileUpdateBody, type RefreshBody, type SignupBody, type TwoFactorDisableBody, type TwoFactorVerifyBody } from '@upfleet/proto/schemas';
import { badRequest, conflict, unauthorized, notFound } from '../errors';
import { DUMMY_PASSWORD_HASH, hashPassword, sha256, verifyPassword, type SecretBox } from '../lib/crypto';
import type { CatalogRepo } from '../store/catalog-repo';
import { isUniqueViolation } from '../store/sql/errors';
import type { UserRow, UsersRepo } from '../store/users-repo';
import type { CheckoutClaimer } from './billing';
import type { RateLimiter } from './rate-limiter';
import type { TokenService } from './tokens';
import { VERIFY_LINK_TTL_MS, type AccountMailer } from './account-mail';

export const EMAIL_CHANGE_PROOF = 'Enter your current password (or a two-factor code) to change your email';
export const VERIFY_LINK_INVALID = 'This verification link is invalid, used or expired';
export const ALREADY_VERIFIED = 'Your email address is already verified';

export const toUser = (u: UserRow): User => ({
  id: u.id,
  username: u.username,
  email: u.email,
  timezone: u.timezone,
  two_factor_enabled: Boolean(u.two_factor_enabled),
});

const TOTP_STEP_SECONDS = 30;
authenticator.options = { window: 1, digits: LIMITS.twoFactorDigits, step: TOTP_STEP_SECONDS };

/** The time step a code belongs to (within ±1 step of now), or null when it is wrong. */
function totpStep(code: string, secret: string, now: number): number | null {
  const delta = authenticator.clone({ epoch: now }).checkDelta(code, secret);
  return delta === null ? null : Math.floor(now / 1000 / TOTP_STEP_SECONDS) + delta;
}

const BACKUP_CODE_COUNT = 10;
const normaliseBackupCode = (code: string) => code.trim().toLowerCase().replace(/[^a-z0-9]/g, '');

export interface AuthDeps {
  users: UsersRepo;
  catalog: CatalogRepo;
  /** The package a new account starts on (DEFAULT_PACKAGE); Free without it. */
  defaultPackageId?: () => number;
  tokens: TokenService;
  limiter: RateLimiter;
  box: SecretBox;
  /** Attaches an anonymous checkout (`checkout_session` in the body) to the account. */
  checkout?: CheckoutClaimer;
  /** Set when SMTP_URL is: addresses must be confirmed by a mailed link. Without it every address
   *  counts as verified (a self-hosted server with one person). */
  mailer?: AccountMailer | null;
  /** The address users open, for the verification link. */
  publicUrl?: () => string;
  logger?: { warn(obj: object, msg: string): void };
  now?: () => number;
}

export function createAuthService(deps: AuthDeps) {
  const { users, tokens, limiter, box } = deps;
  const now = deps.now ?? Date.now;
  const mailer = deps.mailer ?? null;
  const emailVerified = (u: UserRow) => !mailer || u.email_verified === 1;

  /** Stores a one-use 48 h link for `email` (the current address, or a new one to move to); answers its token. */
  async function storeVerification(userId: number, email: string, sessionId: string | null): Promise<string> {
    const token = crypto.randomBytes(32).toString('base64url');
    await users.addVerification(userId, sha256(token), email, now() + VERIFY_LINK_TTL_MS, sessionId);
    return token;
  }

  /** Mails a stored link; a failure is logged, never thrown. */
  function mailVerification(user: UserRow, email: string, token: string): Promise<void> {
    if (!mailer) return Promise.resolve();
    const base = (deps.publicUrl?.() ?? '').replace(/\/+$/, '');
    const link = `${base}/api/auth/verify-email?token=${token}`;
    return mailer.sendVerification(email, link, email.toLowerCase() !== user.email.toLowerCase()).catch((err: Error) => {
      deps.logger?.warn({ err: err.message, userId: user.id }, 'verification mail failed');
    });
  }

  async function sendVerification(user: UserRow, email: string, sessionId: string | null = null): Promise<void> {
    if (!mailer) return;
    await mailVerification(user, email, await storeVerification(user.id, email, sessionId));
  }

  /** The current password or a current code (TOTP or backup), counted as an account failure when wrong. */
  async function proveOwner(user: UserRow, password: string | undefined, code: string | undefined, missing: string): Promise<void> {
    if (!password && !code) throw badRequest(missing);
    const attempt = await limiter.consume('account_fail', user.email);
    if (password) {
      if (!(await verifyPassword(password, user.password_hash))) throw badRequest('Current password is incorrect');
    } else if (!code || !user.two_factor_enabled || !(await verifyTotpOrBackup(user, code))) throw badRequest(MESSAGES.invalidCode);
    await limiter.undo(attempt);
  }

  /** A TOTP code counts once: its time step must be later than the last one this account used
   *  (RFC 6238 §5.2), so a code seen over a shoulder or in a log cannot be replayed in its window. */
  async function verifyTotpOrBackup(user: UserRow, code: string): Promise<boolean> {
    const totp = check(TwoFactorCode, code);
    if (totp.ok && user.totp_secret_enc) {
      const step = totpStep(totp.data, box.open(user.totp_secret_enc), now());
      return step !== null && (await users.claimTotpStep(user.id, step));
    }
    const backup = normaliseBackupCode(code);
    return backup.length >= 8 && (await users.useBackupCode(user.id, sha256(backup)));
  }

  // Bodies arrive parsed by their schema (@upfleet/proto/schemas); what is left here is policy.
  return {
    async signup({ username, email, password, checkout_session }: SignupBody, ip: string): Promise<AuthResult> {
      await limiter.consume('signup_ip', ip);
      if (await users.byEmail(email)) throw conflict('An account with this email already exists');
      if (await users.byUsername(username)) throw conflict('This username is already taken');
      // Checked with Stripe before the account exists, so a bad or used checkout creates nothing.
      const claim = (await deps.checkout?.prepareClaim(checkout_session, { email, verified: false, atLogin: false })) ?? null;
      const hash = await hashPassword(password);
      let id: number;
      try {
        id = await users.insert(username, email, hash, deps.defaultPackageId?.() ?? deps.catalog.freePackage().package_id, !mailer);
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict('An account with this email already exists');
        throw e;
      }
      if (claim) await deps.checkout!.commitClaim(claim, id);
      if (mailer) {
        // The link is stored before the answer; the mail is not awaited (a slow mail server does not hold up a signup).
        const token = await storeVerification(id, email, null);
        void mailVerification((await users.byId(id))!, email, token);
      }
      const pair = await tokens.issue(id);
      return { user: toUser((await users.byId(id))!), ...pair };
    },

    async login({ email, password, two_factor_code: code, checkout_session }: LoginBody, ip: string): Promise<AuthResult> {
      await limiter.consume('login_ip', ip);
      // Counted before the hash is awaited, so parallel guesses cannot all pass the check first.
      const attempt = await limiter.consume('account_fail', email);
      const user = await users.byEmail(email);
      const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
      if (!user || !ok) throw unauthorized(MESSAGES.invalidCredentials);
      if (user.two_factor_enabled) {
        if (!code) {
          await limiter.undo(attempt); // the right password, asked for its second factor: not a failure
          throw unauthorized('Two-factor authentication code required', { requires2FA: true });
        }
        if (!(await verifyTotpOrBackup(user, code))) throw unauthorized(MESSAGES.invalidCode, { requires2FA: true });
      }
      await limiter.reset('account_fail', email);
      const claim = (await deps.checkout?.prepareClaim(checkout_session, { email: user.email, verified: emailVerified(user), atLogin: true })) ?? null;
      if (claim) await deps.checkout!.commitClaim(claim, user.id);
      const pair = await tokens.issue(user.id);
      return { user: toUser(user), ...pair };
    },

    async refresh({ refreshToken }: RefreshBody, ip: string) {
      await limiter.consume('refresh_ip', ip);
      const pair = await tokens.refresh(refreshToken);
      const user = await users.byId(pair.userId);
      if (!user) throw unauthorized('Invalid refresh token');
      return { accessToken: pair.accessToken, refreshToken: pair.refreshToken, user: toUser(user) };
    },

    logout: (sessionId: string) => tokens.revoke(sessionId),

    async me(userId: number): Promise<User> {
      const u = await users.byId(userId);
      if (!u) throw unauthorized('Session has ended');
      return toUser(u);
    },

    async profile(userId: number): Promise<Profile> {
      const u = await users.byId(userId);
      if (!u) throw notFound('User not found');
      const pending = mailer ? await users.pendingEmail(userId, now()) : null;
      return { username: u.username, email: u.email, timezone: u.timezone, email_verified: emailVerified(u), ...(pending ? { pending_email: pending } : {}) };
    },

    /** Whether the user's address is verified (always true without SMTP). */
    async emailVerified(userId: number): Promise<boolean> {
      const u = await users.byId(userId);
      return u !== undefined && emailVerified(u);
    },

    /** A changed email needs the current password or a 2FA code; with SMTP the new address gets a
     *  link and becomes the account's only once it is opened. */
    async updateProfile(userId: number, sessionId: string, { username, email, timezone, current_password, two_factor_code }: ProfileUpdateBody): Promise<Profile> {
      const before = await users.byId(userId);
      if (!before) throw notFound('User not found');
      const byEmail = await users.byEmail(email);
      if (byEmail && byEmail.id !== userId) throw conflict('An account with this email already exists');
      const byName = await users.byUsername(username);
      if (byName && byName.id !== userId) throw conflict('This username is already taken');
      const changed = before.email.toLowerCase() !== email.toLowerCase();
      if (changed) await proveOwner(before, current_password, two_factor_code, EMAIL_CHANGE_PROOF);
      if (changed && mailer) {
        await users.updateProfile(userId, username, before.email, timezone);
        await sendVerification(before, email, sessionId);
        return this.profile(userId);
      }
      await users.updateProfile(userId, username, email, timezone);
      if (changed) await tokens.revokeOthers(userId, sessionId, 'email change');
      return this.profile(userId);
    },

    /** Opens a verification link: the address is verified (a new one becomes the account's). */
    async verifyEmail(token: string): Promise<void> {
      const hash = sha256(token);
      const row = await users.verification(hash);
      if (!row || !(await users.useVerification(hash, now()))) throw badRequest(VERIFY_LINK_INVALID);
      const user = await users.byId(row.user_id);
      if (!user) throw badRequest(VERIFY_LINK_INVALID);
      const taken = await users.byEmail(row.email);
      if (taken && taken.id !== user.id) throw conflict('An account with this email already exists');
      await users.setVerifiedEmail(user.id, row.email);
      if (row.email.toLowerCase() !== user.email.toLowerCase()) await tokens.revokeOthers(user.id, row.session_id ?? '', 'email change');
    },

    /** Sends the link again (verify_email_user: 3 an hour). */
    async resendVerification(userId: number): Promise<{ sent: true; email: string }> {
      const user = await users.byId(userId);
      if (!user) throw notFound('User not found');
      if (!mailer) throw badRequest(ALREADY_VERIFIED);
      const pending = await users.pendingEmail(userId, now());
      if (!pending && emailVerified(user)) throw badRequest(ALREADY_VERIFIED);
      await limiter.consume('verify_email_user', String(userId));
      const to = pending ?? user.email;
      await sendVerification(user, to);
      return { sent: true, email: to };
    },

    async changePassword(userId: number, sessionId: string, { current_password: current, new_password: next }: PasswordChangeBody): Promise<void> {
      const user = await users.byId(userId);
      if (!user) throw notFound('User not found');
      const attempt = await limiter.consume('account_fail', user.email);
      if (!(await verifyPassword(current, user.password_hash))) throw badRequest('Current password is incorrect');
      await limiter.undo(attempt);
      await users.updatePassword(userId, await hashPassword(next));
      await tokens.revokeOthers(userId, sessionId, 'password change');
    },

    async setupTwoFactor(userId: number): Promise<TwoFactorSetup> {
      const user = await users.byId(userId);
      if (!user) throw notFound('User not found');
      if (user.two_factor_enabled) throw conflict('Two-factor authentication is already enabled');
      const secret = authenticator.generateSecret(20);
      const backupCodes = Array.from({ length: BACKUP_CODE_COUNT }, () => {
        const raw = crypto.randomBytes(5).toString('hex');
        return `${raw.slice(0, 5)}-${raw.slice(5)}`;
      });
      await users.startTotpSetup(userId, box.seal(secret), backupCodes.map((c) => sha256(normaliseBackupCode(c))));
      const otpauth = authenticator.keyuri(user.email, 'Upfleet', secret);
      const qrCodeUrl = await QRCode.toDataURL(otpauth, { margin: 1, width: 240 });
      return { qrCodeUrl, secret, backupCodes };
    },

    async verifyTwoFactor(userId: number, sessionId: string, ip: string, { token }: TwoFactorVerifyBody): Promise<void> {
      await limiter.consume('twofa_ip', ip);
      const user = await users.byId(userId);
      if (!user) throw notFound('User not found');
      if (!user.totp_pending_secret_enc) throw badRequest('Start two-factor setup first');
      const attempt = await limiter.consume('account_fail', user.email);
      const step = totpStep(token, box.open(user.totp_pending_secret_enc), now());
      if (step === null) throw badRequest(MESSAGES.invalidCode);
      await limiter.undo(attempt);
      // The step is recorded, so the code just used cannot sign in a moment later.
      await users.enableTotp(userId, step);
      await tokens.revokeOthers(userId, sessionId, 'two-factor enabled');
    },

    /** Needs the current password or a current code (TOTP or backup), so a stolen access token
     *  alone cannot strip the second factor. */
    async disableTwoFactor(userId: number, sessionId: string, { password, token }: TwoFactorDisableBody): Promise<void> {
      const user = await users.byId(userId);
      if (!user) throw notFound('User not found');
      if (!user.two_factor_enabled) throw badRequest('Two-factor authentication is not enabled');
      await proveOwner(user, password, token, MESSAGES.twoFactorDisableProof);
      await users.disableTotp(userId);
      await tokens.revokeOthers(userId, sessionId, 'two-factor disabled');
    },

    /** The second factor of a sign-in that proved the first elsewhere (single sign-on); wrong codes
     *  count against the account like failed logins. */
    async verifySecondFactor(userId: number, code: string): Promise<boolean> {
      const user = await users.byId(userId);
      if (!user?.two_factor_enabled) return false;
      const attempt = await limiter.consume('account_fail', user.email);
      if (!(await verifyTotpOrBackup(user, code))) return false;
      await limiter.undo(attempt);
      return true;
    },

    async twoFactorStatus(userId: number): Promise<{ enabled: boolean }> {
      const user = await users.byId(userId);
      if (!user) throw notFound('User not found');
      return { enabled: Boolean(user.two_factor_enabled) };
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
