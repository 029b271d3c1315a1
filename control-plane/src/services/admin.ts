// Operator actions behind /api/admin: users' plans, regions, agent bootstrap tokens, agent status.
import crypto from 'node:crypto';
import { badRequest, conflict, notFound } from '../errors';
import { randomToken, sha256 } from '../lib/crypto';
import type { AgentsRepo } from '../store/agents-repo';
import { regionKey, type CatalogRepo } from '../store/catalog-repo';
import type { UsersRepo } from '../store/users-repo';

/** Bootstrap tokens expire after a day unless asked otherwise. */
export const DEFAULT_AGENT_TOKEN_TTL_SECONDS = 86_400;

export function createAdminService(deps: {
  users: UsersRepo; catalog: CatalogRepo; agents: AgentsRepo; onChange?: () => void; now?: () => number;
  /** Checks an agent owns right now (the heartbeat's copy lags a handover). */
  ownedCount?: (agentId: string) => number;
  /** SHA-256 of the gRPC CA the agents must trust (hex), carried in printed tokens; null without TLS. */
  caFingerprint?: () => string | null;
  /** These agents were just revoked: end their open streams now. */
  onAgentsRevoked?: (agentIds: string[]) => void;
}) {
  const now = deps.now ?? Date.now;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    listUsers: () =>
      deps.users.adminList().map((u) => ({ ...u, two_factor_enabled: Boolean(u.two_factor_enabled) })),

    setPackage(body: Record<string, unknown>) {
      const email = typeof body.email === 'string' ? body.email.trim() : '';
      const name = typeof body.package === 'string' ? body.package.trim() : '';
      if (!email || !name) throw badRequest('email and package are required');
      const user = deps.users.byEmail(email);
      if (!user) throw notFound(`No user with email ${email}`);
      const pkg = deps.catalog.packageByName(name);
      if (!pkg) throw notFound(`No package named ${name}; see 'upfleet package list'`);
      deps.users.setPackage(user.id, pkg.package_id);
      deps.onChange?.();
      return { id: user.id, email: user.email, package_name: pkg.package_name };
    },

    listPackages: () => deps.catalog.listPackages(),

    listRegions() {
      const live = deps.agents.live(now());
      return deps.catalog.listRegions().map((r) => ({ ...r, agents_live: live.filter((a) => a.region === regionKey(r)).length }));
    },

    addRegion(body: Record<string, unknown>) {
      const region = typeof body.region === 'string' ? body.region.trim() : '';
      const city = typeof body.city === 'string' ? body.city.trim() : '';
      if (!/^[A-Za-z]{2,10}$/.test(region)) throw badRequest('region must be 2 to 10 letters, e.g. US');
      if (!/^[A-Za-z][A-Za-z .]{1,40}$/.test(city)) throw badRequest('city must be a name of 2 to 40 letters, e.g. Virginia');
      if (deps.catalog.regionByKey(`${region}-${city}`)) throw conflict(`Region ${region}-${city} already exists`);
      const created = deps.catalog.addRegion(region, city, body.primary === true);
      deps.onChange?.();
      return created;
    },

    /**
     * A bootstrap token: expires after `expires_in_seconds` (default 24 h; null: never) and allows
     * `max_uses` registrations (default 1; null: any number). The printed token carries the CA's
     * fingerprint (`upf_<secret>.<sha256>`), so an agent can fetch and pin the CA by itself.
     */
    createAgentToken(body: Record<string, unknown>) {
      const region = typeof body.region === 'string' ? body.region.trim() : '';
      if (!deps.catalog.regionByKey(region)) throw badRequest(`Unknown region ${region || '(none)'}; see 'upfleet region list'`);
      const ttl = body.expires_in_seconds === undefined ? DEFAULT_AGENT_TOKEN_TTL_SECONDS : body.expires_in_seconds;
      if (ttl !== null && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl <= 0)) {
        throw badRequest('expires_in_seconds must be a positive whole number, or null for a token that never expires');
      }
      const uses = body.max_uses === undefined ? 1 : body.max_uses;
      if (uses !== null && (typeof uses !== 'number' || !Number.isInteger(uses) || uses <= 0)) {
        throw badRequest('max_uses must be a positive whole number, or null for any number of agents');
      }
      const tokenId = crypto.randomUUID();
      const secret = `upf_${randomToken(24)}`;
      const t = now();
      const expiresAt = typeof ttl === 'number' ? t + ttl * 1000 : null;
      deps.agents.insertToken(tokenId, sha256(secret), region, t, expiresAt, uses as number | null);
      const fp = deps.caFingerprint?.() ?? null;
      return { token_id: tokenId, token: fp ? `${secret}.${fp}` : secret, region, expires_at: iso(expiresAt), max_uses: uses as number | null, ca_fingerprint: fp };
    },

    listAgentTokens: () =>
      deps.agents.listTokens().map((t) => ({
        token_id: t.token_id, region: t.region, created_at: iso(t.created_at), expires_at: iso(t.expires_at),
        revoked_at: iso(t.revoked_at), used_count: t.used_count, max_uses: t.max_uses,
      })),

    revokeAgentToken(tokenId: string) {
      const existing = deps.agents.tokenById(tokenId);
      if (!existing) throw notFound('Agent token not found');
      const revoked = deps.agents.revokeToken(tokenId, now());
      if (revoked.length > 0) deps.onAgentsRevoked?.(revoked);
      deps.onChange?.();
      return { token_id: tokenId, revoked_at: iso(deps.agents.tokenById(tokenId)!.revoked_at) };
    },

    listAgents() {
      const t = now();
      return deps.agents.listAgents().map((a) => ({
        agent_id: a.agent_id,
        region: a.region,
        hostname: a.hostname,
        version: a.version,
        status: a.revoked_at !== null ? 'revoked' : a.lease_expires_at !== null && a.lease_expires_at > t ? 'live' : 'lapsed',
        last_heartbeat_at: iso(a.last_heartbeat_at),
        checks_owned: deps.ownedCount ? deps.ownedCount(a.agent_id) : a.checks_owned,
        checks_per_minute: a.checks_per_minute,
        outbox_depth: a.outbox_depth,
        scheduling_lag_ms_p99: a.scheduling_lag_ms_p99,
      }));
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
