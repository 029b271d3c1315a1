// Operator actions behind /api/admin: users' plans, regions, agent bootstrap tokens, agent status.
import crypto from 'node:crypto';
import type { AgentTokenCreateBody, RegionCreateBody, SetPackageBody } from '@upfleet/proto/schemas';
import { badRequest, conflict, notFound } from '../errors';
import { randomToken, sha256 } from '../lib/crypto';
import type { AgentsRepo } from '../store/agents-repo';
import { regionKey, type CatalogRepo } from '../store/catalog-repo';
import type { UsersRepo } from '../store/users-repo';

export function createAdminService(deps: {
  users: UsersRepo; catalog: CatalogRepo; agents: AgentsRepo; onChange?: () => void; now?: () => number;
  /** Checks an agent owns right now (the heartbeat's copy lags a handover). */
  ownedCount?: (agentId: string) => number;
}) {
  const now = deps.now ?? Date.now;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    listUsers: () =>
      deps.users.adminList().map((u) => ({ ...u, two_factor_enabled: Boolean(u.two_factor_enabled) })),

    setPackage({ email, package: name }: SetPackageBody) {
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

    addRegion({ region, city, primary }: RegionCreateBody) {
      if (deps.catalog.regionByKey(`${region}-${city}`)) throw conflict(`Region ${region}-${city} already exists`);
      const created = deps.catalog.addRegion(region, city, primary);
      deps.onChange?.();
      return created;
    },

    createAgentToken({ region, expires_in_seconds: ttl }: AgentTokenCreateBody) {
      if (!deps.catalog.regionByKey(region)) throw badRequest(`Unknown region ${region || '(none)'}; see 'upfleet region list'`);
      const tokenId = crypto.randomUUID();
      const token = `upf_${randomToken(24)}`;
      const t = now();
      const expiresAt = typeof ttl === 'number' ? t + ttl * 1000 : null;
      deps.agents.insertToken(tokenId, sha256(token), region, t, expiresAt);
      return { token_id: tokenId, token, region, expires_at: iso(expiresAt) };
    },

    listAgentTokens: () =>
      deps.agents.listTokens().map((t) => ({
        token_id: t.token_id, region: t.region, created_at: iso(t.created_at), expires_at: iso(t.expires_at),
        revoked_at: iso(t.revoked_at), used_count: t.used_count,
      })),

    revokeAgentToken(tokenId: string) {
      const existing = deps.agents.tokenById(tokenId);
      if (!existing) throw notFound('Agent token not found');
      deps.agents.revokeToken(tokenId, now());
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
