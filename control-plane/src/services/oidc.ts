// OpenID Connect sign-in for the whole server, through openid-client: the authorization code flow
// with PKCE (S256), state and nonce. The first sign-in creates the account, or links an existing one
// only when the provider says the email is verified. An existing account whose own address was never
// verified here is taken over (its password, two-factor, sessions, API keys and the members it let
// into its personal workspace end): whoever signed up with that address could not prove it. An
// account with two-factor still asks for its code.
// OIDC_DEFAULT_WORKSPACE_ID and OIDC_DEFAULT_ROLE make every SSO user a member of one workspace, once.
import * as oidc from 'openid-client';
import { LIMITS, MESSAGES } from '@upfleet/proto/rest';
import type { OidcConfig } from '../config';
import crypto from 'node:crypto';
import { AppError, forbidden, unauthorized } from '../errors';
import type { Db } from '../store/db';
import type { UsersRepo } from '../store/users-repo';
import type { WorkspacesRepo } from '../store/workspaces-repo';
import type { TokenPair } from './tokens';

/** How long a started sign-in may take at the provider. */
const FLOW_TTL_MS = 10 * 60_000;
/** How long the second step (the two-factor code after the provider's sign-in) may take, and how many tries it gets. */
const TWO_FACTOR_TTL_MS = 5 * 60_000;
const TWO_FACTOR_TRIES = 5;
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';
export const OIDC_TWO_FACTOR_EXPIRED = 'This sign-in has expired. Please sign in again.';
export const OIDC_EMAIL_NOT_VERIFIED = 'An account with this email already exists. Sign in with your password: your provider did not confirm this address.';

interface PendingFlow { verifier: string; nonce: string; expires: number }
interface PendingSecondFactor { userId: number; expires: number; tries: number; clientAddress: string }

/** What the callback answers: the tokens, or a ticket to trade with the two-factor code. */
export type OidcCallbackResult =
  | (TokenPair & { userId: number; created: boolean; twoFactorTicket?: undefined })
  | { twoFactorTicket: string; userId: number; created: false };

export function createOidcService(deps: {
  config: OidcConfig;
  db: Db;
  users: UsersRepo;
  workspaces: WorkspacesRepo;
  issueTokens: (userId: number) => Promise<TokenPair>;
  /** Ends every session of a person (the account was taken over). */
  revokeSessions: (userId: number, reason: string) => Promise<void>;
  /** Checks a TOTP or backup code of an account with two-factor (counted like a failed login). */
  verifySecondFactor: (userId: number, code: string) => Promise<boolean>;
  freePackageId: () => number;
  publicUrl: () => string;
  logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  now?: () => number;
}) {
  const { config, users } = deps;
  const now = deps.now ?? Date.now;
  const pending = new Map<string, PendingFlow>();
  const secondFactor = new Map<string, PendingSecondFactor>();
  let discovered: Promise<oidc.Configuration> | null = null;
  const q = {
    identity: deps.db.prepare('SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?').pluck(),
    link: deps.db.prepare('INSERT OR IGNORE INTO user_identities (issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?)'),
    resetAccount: deps.db.prepare("UPDATE users SET password_hash = '!', email_verified = 1, totp_secret_enc = NULL, totp_pending_secret_enc = NULL, two_factor_enabled = 0, totp_last_step = NULL WHERE id = ?"),
    dropBackupCodes: deps.db.prepare('DELETE FROM backup_codes WHERE user_id = ?'),
    dropVerifications: deps.db.prepare('DELETE FROM email_verifications WHERE user_id = ?'),
    dropApiKeys: deps.db.prepare('DELETE FROM api_keys WHERE created_by = ? OR user_id = ?'),
    dropIdentities: deps.db.prepare('DELETE FROM user_identities WHERE user_id = ?'),
    // The personal workspace's id is the person's: whoever the squatter let in leaves with them.
    dropGuests: deps.db.prepare('DELETE FROM workspace_members WHERE workspace_id = ? AND user_id != ?'),
    dropInvitations: deps.db.prepare('DELETE FROM workspace_invitations WHERE workspace_id = ? AND accepted_at IS NULL'),
    joined: deps.db.prepare('SELECT 1 FROM sso_workspace_joins WHERE workspace_id = ? AND user_id = ?').pluck(),
    join: deps.db.prepare('INSERT OR IGNORE INTO sso_workspace_joins (workspace_id, user_id, at) VALUES (?, ?, ?)'),
  };

  /** The address was never verified here: whoever signed up with it loses the account to the person the provider vouches for. */
  const takeOver = deps.db.transaction((userId: number) => {
    q.resetAccount.run(userId);
    q.dropBackupCodes.run(userId);
    q.dropVerifications.run(userId);
    q.dropApiKeys.run(userId, userId);
    q.dropIdentities.run(userId);
    q.dropGuests.run(userId, userId);
    q.dropInvitations.run(userId);
  });

  /** The provider's metadata, fetched once (again after a failure). A plain-http issuer is for local tests and development. */
  function configuration(): Promise<oidc.Configuration> {
    discovered ??= oidc
      .discovery(new URL(config.issuer), config.clientId, config.clientSecret, undefined, new URL(config.issuer).protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined)
      .catch((err: Error) => {
        discovered = null;
        deps.logger?.warn({ err: err.message, issuer: config.issuer }, 'OIDC discovery failed');
        throw new AppError('unavailable', 'The single sign-on provider cannot be reached. Please try again later.');
      });
    return discovered;
  }
  const redirectUri = () => `${deps.publicUrl().replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`;

  function prune() {
    const t = now();
    for (const [k, v] of pending) if (v.expires <= t) pending.delete(k);
    if (pending.size > 10_000) pending.clear();
    for (const [k, v] of secondFactor) if (v.expires <= t) secondFactor.delete(k);
    if (secondFactor.size > 10_000) secondFactor.clear();
  }

  /** A free username from the provider's, within the username rules. */
  function usernameFor(claims: { preferred_username?: unknown; email?: unknown; sub: string }): string {
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const raw = text(claims.preferred_username) || text(claims.email).split('@')[0] || `sso-${claims.sub}`;
    let base = raw.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, LIMITS.usernameMax - 4);
    if (base.length < LIMITS.usernameMin) base = `sso-${base}`.slice(0, LIMITS.usernameMax - 4);
    let name = base;
    for (let i = 2; users.byUsername(name); i++) name = `${base}${i}`;
    return name;
  }

  return {
    buttonLabel: config.buttonLabel,

    /** The provider's authorization URL for a new flow, and its state (the browser keeps it in a cookie). */
    async start(): Promise<{ url: string; state: string }> {
      prune();
      const c = await configuration();
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      pending.set(state, { verifier, nonce, expires: now() + FLOW_TTL_MS });
      const url = oidc.buildAuthorizationUrl(c, {
        redirect_uri: redirectUri(), scope: 'openid email profile', state, nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      return { url: url.href, state };
    },

    /** The provider sent the browser back: checks state (against the cookie), PKCE and nonce, then signs
     *  the person in, or answers a ticket when the account also needs its two-factor code. */
    async callback(currentUrl: URL, cookieState: string | null, clientAddress?: string): Promise<OidcCallbackResult> {
      const state = currentUrl.searchParams.get('state') ?? '';
      const flow = pending.get(state);
      pending.delete(state);
      if (!flow || flow.expires <= now() || !cookieState || cookieState !== state) throw unauthorized('This sign-in has expired or was not started here. Please try again.');
      const c = await configuration();
      const callbackUrl = new URL(redirectUri());
      callbackUrl.search = currentUrl.search;
      const tokens = await oidc.authorizationCodeGrant(c, callbackUrl, { pkceCodeVerifier: flow.verifier, expectedState: state, expectedNonce: flow.nonce });
      const idClaims = tokens.claims();
      if (!idClaims) throw unauthorized('The provider sent no ID token');
      let claims: Record<string, unknown> & { sub: string } = { ...idClaims };
      if (!claims.email) claims = { ...claims, ...(await oidc.fetchUserInfo(c, tokens.access_token, idClaims.sub)) };
      const email = typeof claims.email === 'string' ? claims.email.trim() : '';
      const verified = claims.email_verified === true;

      let userId = q.identity.get(config.issuer, claims.sub) as number | undefined;
      let created = false;
      if (userId === undefined) {
        if (!email) throw forbidden('Your provider did not share an email address');
        const existing = users.byEmail(email);
        if (existing) {
          if (!verified) throw forbidden(OIDC_EMAIL_NOT_VERIFIED);
          if (existing.email_verified !== 1) {
            takeOver(existing.id);
            await deps.revokeSessions(existing.id, 'taken over by single sign-on');
            deps.logger?.warn({ userId: existing.id }, 'OIDC took over an account whose address was never verified');
          }
          userId = existing.id;
        } else {
          // No password: this person signs in through the provider (a reset can set one later).
          userId = users.insert(usernameFor(claims), email, '!', deps.freePackageId(), verified);
          created = true;
        }
        q.link.run(config.issuer, claims.sub, userId, now());
        deps.logger?.info({ userId, created }, 'OIDC identity linked');
      }
      const ws = config.defaultWorkspaceId;
      if (ws !== null && deps.workspaces.get(ws) && !deps.workspaces.role(ws, userId) && !q.joined.get(ws, userId)) {
        deps.workspaces.addMember(ws, userId, config.defaultRole);
        q.join.run(ws, userId, now());
        deps.workspaces.insertAudit({
          workspaceId: ws, at: now(), memberId: userId, memberName: users.byId(userId)?.username ?? '', action: 'member.join', targetId: String(userId),
          summary: `via single sign-on, role=${config.defaultRole}`, clientAddress: clientAddress ?? '',
        });
      }
      if (users.byId(userId)?.two_factor_enabled) {
        prune();
        const ticket = crypto.randomBytes(32).toString('base64url');
        secondFactor.set(ticket, { userId, expires: now() + TWO_FACTOR_TTL_MS, tries: 0, clientAddress: clientAddress ?? '' });
        return { twoFactorTicket: ticket, userId, created: false };
      }
      return { ...(await deps.issueTokens(userId)), userId, created };
    },

    /** The second step of an SSO sign-in to an account with two-factor: the ticket from the callback and the code. */
    async completeTwoFactor(ticket: string, code: string): Promise<TokenPair & { userId: number }> {
      const entry = secondFactor.get(ticket);
      if (!entry || entry.expires <= now()) {
        secondFactor.delete(ticket);
        throw unauthorized(OIDC_TWO_FACTOR_EXPIRED);
      }
      if (!code) throw unauthorized('Two-factor authentication code required', { requires2FA: true });
      if (!(await deps.verifySecondFactor(entry.userId, code))) {
        if (++entry.tries >= TWO_FACTOR_TRIES) secondFactor.delete(ticket);
        throw unauthorized(MESSAGES.invalidCode, { requires2FA: true });
      }
      secondFactor.delete(ticket);
      return { ...(await deps.issueTokens(entry.userId)), userId: entry.userId };
    },
  };
}
export type OidcService = ReturnType<typeof createOidcService>;
