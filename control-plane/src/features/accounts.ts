// Accounts: sessions and tokens (expired ones pruned hourly), sign-up and sign-in, single sign-on,
// and API keys.
import type { BillingService } from '../services/billing';
import { createApiKeyService } from '../services/api-keys';
import { createAuthService } from '../services/auth';
import type { EventHub } from '../services/events';
import { createOidcService } from '../services/oidc';
import { createTokenService } from '../services/tokens';
import { createApiKeysRepo } from '../store/api-keys-repo';
import { createSessionsRepo } from '../store/sessions-repo';
import type { Foundation } from './foundation';
import { every, whileLeader, type Feature } from './lifecycle';
import { apiKeyRoutes } from '../http/routes/api-keys';
import { authRoutes } from '../http/routes/auth';
import { oidcRoutes } from '../http/routes/oidc';

export function createAccountsFeature(base: Foundation, deps: { billing: BillingService; events: EventHub }, opts: { pruneIntervalMs?: number }) {
  const { config, users, catalog, logger } = base;
  const tokens = createTokenService({
    sessions: createSessionsRepo(base.sql.db),
    signingKey: base.key('access-tokens'),
    accessTtlSeconds: config.accessTokenTtlSeconds,
    refreshTtlDays: config.refreshTokenTtlDays,
    reuseGraceSeconds: config.refreshReuseGraceSeconds,
  });
  const pruneSessions = async () => {
    try {
      const pruned = await tokens.prune();
      if (pruned.sessions + pruned.tokens > 0) logger.info(pruned, 'pruned expired sessions');
    } catch (err) {
      logger.error({ err }, 'pruning sessions failed');
    }
  };
  const prune = every(opts.pruneIntervalMs ?? 3600_000, () => void pruneSessions());
  const auth = createAuthService({
    users, catalog, tokens, limiter: base.limiter, box: base.box, checkout: deps.billing, logger, now: base.now, defaultPackageId: base.defaultPackageId,
    mailer: base.accountMailer,
    publicUrl: base.publicUrl,
  });
  const oidc = config.oidc
    ? createOidcService({
        config: config.oidc, db: base.sql.db, users, workspaces: base.workspacesRepo, issueTokens: (id) => tokens.issue(id),
        revokeSessions: (id, reason) => tokens.revokeOthers(id, '', reason), verifySecondFactor: (id, code) => auth.verifySecondFactor(id, code),
        freePackageId: base.defaultPackageId, publicUrl: base.publicUrl, logger, now: base.now,
      })
    : null;
  const apiKeys = createApiKeyService({
    keys: createApiKeysRepo(base.sql.db), planOf: base.planOf, perMinute: config.rateLimits.apiKeyPerMinute, onRevoked: (id) => deps.events.endKeyStreams(id),
  });
  return {
    name: 'accounts',
    services: { tokens, auth, oidc, apiKeys },
    routes: (signIn) => ({ account: [oidcRoutes({ oidc, limiter: base.limiter }), authRoutes(auth, signIn), apiKeyRoutes(apiKeys, signIn)] }),
    // Pruning is once-only work in a cluster: the lease holder does it.
    ...whileLeader(base.leadership, {
      start: async () => {
        await pruneSessions();
        prune.start();
      },
      stop: () => prune.stop(),
    }),
  } satisfies Feature<unknown>;
}
