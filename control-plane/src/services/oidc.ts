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
import type { Kysely } from 'kysely';
import type { Schema } from '../store/sql/schema';
import { inTransaction } from '../store/sql/transaction';
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
  db: Kysely<Schema>;
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
  const { db } = deps;
  const q = {
    identity: async (issuer: string, subject: string): Promise<number | undefined> =>
      (await db.selectFrom('user_identities').select('user_id').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst())?.user_id,
    link: async (issuer: string, subject: string, userId: number, at: number): Promise<void> => {
      await db.insertInto('user_identities').values({ issuer, subject, user_id: userId, created_at: at })
        .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing()).execute();
    },
    joined: async (workspaceId: number, userId: number): Promise<boolean> =>
      (await db.selectFrom('sso_workspace_joins').select('at').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst()) !== undefined,
    join: async (workspaceId: number, userId: number, at: number): Promise<void> => {
      await db.insertInto('sso_workspace_joins').values({ workspace_id: workspaceId, user_id: userId, at })
        .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doNothing()).execute();
    },
  };

  /** The address was never verified here: whoever signed up with it loses the account to the person the provider vouches for. */
  const takeOver = (userId: number): Promise<void> =>
    inTransaction(db, async (trx) => {
      await trx.updateTable('users')
        .set({ password_hash: '!', email_verified: 1, totp_secret_enc: null, totp_pending_secret_enc: null, two_factor_enabled: 0, totp_last_step: null })
        .where('id', '=', userId).execute();
      await trx.deleteFrom('backup_codes').where('user_id', '=', userId).execute();
      await trx.deleteFrom('email_verifications').where('user_id', '=', userId).execute();
      await trx.deleteFrom('api_keys').where((eb) => eb.or([eb('created_by', '=', userId), eb('user_id', '=', userId)])).execute();
      await trx.deleteFrom('user_identities').where('user_id', '=', userId).execute();
      // The personal workspace's id is the person's: whoever the squatter let in leaves with them.
      await trx.deleteFrom('workspace_members').where('workspace_id', '=', userId).where('user_id', '!=', userId).execute();
      await trx.deleteFrom('workspace_invitations').where('workspace_id', '=', userId).where('accepted_at', 'is', null).execute();
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
  async function usernameFor(claims: { preferred_username?: unknown; email?: unknown; sub: string }): Promise<string> {
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const raw = text(claims.preferred_username) || text(claims.email).split('@')[0] || `sso-${claims.sub}`;
    let base = raw.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, LIMITS.usernameMax - 4);
    if (base.length < LIMITS.usernameMin) base = `sso-${base}`.slice(0, LIMITS.usernameMax - 4);
    let name = base;
    for (let i = 2; await users.byUsername(name); i++) name = `${base}${i}`;
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

      let userId = await q.identity(config.issuer, claims.sub);
      let created = false;
      if (userId === undefined) {
        if (!email) throw forbidden('Your provider did not share an email address');
        const existing = await users.byEmail(email);
        if (existing) {
          if (!verified) throw forbidden(OIDC_EMAIL_NOT_VERIFIED);
          if (existing.email_verified !== 1) {
            await takeOver(existing.id);
            await deps.revokeSessions(existing.id, 'taken over by single sign-on');
            deps.logger?.warn({ userId: existing.id }, 'OIDC took over an account whose address was never verified');
          }
          userId = existing.id;
        } else {
          // No password: this person signs in through the provider (a reset can set one later).
          userId = await users.insert(await usernameFor(claims), email, '!', deps.freePackageId(), verified);
          created = true;
        }
        await q.link(config.issuer, claims.sub, userId, now());
        deps.logger?.info({ userId, created }, 'OIDC identity linked');
      }
      const ws = config.defaultWorkspaceId;
      if (ws !== null && (await deps.workspaces.get(ws)) && !(await deps.workspaces.role(ws, userId)) && !(await q.joined(ws, userId))) {
        await deps.workspaces.addMember(ws, userId, config.defaultRole);
        await q.join(ws, userId, now());
        await deps.workspaces.insertAudit({
          workspaceId: ws, at: now(), memberId: userId, memberName: (await users.byId(userId))?.username ?? '', action: 'member.join', targetId: String(userId),
          summary: `via single sign-on, role=${config.defaultRole}`, clientAddress: clientAddress ?? '',
        });
      }
      if ((await users.byId(userId))?.two_factor_enabled) {
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
