// OpenID Connect sign-in for the whole server (issue 23), through openid-client: the authorization
// code flow with PKCE (S256), state and nonce. The first sign-in creates the account, or links an
// existing one only when the provider says the email is verified; OIDC_DEFAULT_WORKSPACE_ID and
// OIDC_DEFAULT_ROLE make every SSO user a member of one workspace.
import * as oidc from 'openid-client';
import { LIMITS } from '@upfleet/proto/rest';
import type { OidcConfig } from '../config';
import { AppError, forbidden, unauthorized } from '../errors';
import type { Db } from '../store/db';
import type { UsersRepo } from '../store/users-repo';
import type { WorkspacesRepo } from '../store/workspaces-repo';
import type { TokenPair } from './tokens';

/** How long a started sign-in may take at the provider. */
const FLOW_TTL_MS = 10 * 60_000;
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';
export const OIDC_EMAIL_NOT_VERIFIED = 'An account with this email already exists. Sign in with your password: your provider did not confirm this address.';

interface PendingFlow { verifier: string; nonce: string; expires: number }

export function createOidcService(deps: {
  config: OidcConfig;
  db: Db;
  users: UsersRepo;
  workspaces: WorkspacesRepo;
  issueTokens: (userId: number) => Promise<TokenPair>;
  freePackageId: () => number;
  publicUrl: () => string;
  logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  now?: () => number;
}) {
  const { config, users } = deps;
  const now = deps.now ?? Date.now;
  const pending = new Map<string, PendingFlow>();
  let discovered: Promise<oidc.Configuration> | null = null;
  const q = {
    identity: deps.db.prepare('SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?').pluck(),
    link: deps.db.prepare('INSERT OR IGNORE INTO user_identities (issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?)'),
  };

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
  }

  /** A free username from the provider's, within the username rules. */
  function usernameFor(claims: { preferred_username?: unknown; email?: unknown; sub: string }): string {
    const raw = String(claims.preferred_username ?? String(claims.email ?? '').split('@')[0] ?? '') || `sso-${claims.sub}`;
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

    /** The provider sent the browser back: checks state (against the cookie), PKCE and nonce, then signs the person in. */
    async callback(currentUrl: URL, cookieState: string | null, clientAddress?: string): Promise<TokenPair & { userId: number; created: boolean }> {
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
      if (ws !== null && deps.workspaces.get(ws) && !deps.workspaces.role(ws, userId)) {
        deps.workspaces.addMember(ws, userId, config.defaultRole);
        deps.workspaces.insertAudit({
          workspaceId: ws, at: now(), memberId: userId, memberName: users.byId(userId)?.username ?? '', action: 'member.join', targetId: String(userId),
          summary: `via single sign-on, role=${config.defaultRole}`, clientAddress: clientAddress ?? '',
        });
      }
      return { ...(await deps.issueTokens(userId)), userId, created };
    },
  };
}
export type OidcService = ReturnType<typeof createOidcService>;

