// Operator actions behind /api/admin: users' plans, regions, agent bootstrap tokens, agent status.
import crypto from 'node:crypto';
import type { AgentTokenCreateBody, RegionCreateBody, SetPackageBody, WorkspaceSetPackageBody } from '@upfleet/proto/schemas';
import { badRequest, conflict, notFound } from '../errors';
import { compareVersions, CONTROL_PLANE_VERSION } from '../version';
import { randomToken, sha256 } from '../lib/crypto';
import type { AgentsRepo } from '../store/agents-repo';
import { regionKey, type CatalogRepo } from '../store/catalog-repo';
import type { UsersRepo } from '../store/users-repo';
import type { AdminWorkspaceRow } from '../store/workspaces-repo';
import type { ChangeTopic } from '../change-hub';

export function createAdminService(deps: {
  users: UsersRepo; catalog: CatalogRepo; agents: AgentsRepo; /** The change hub's plan topic: a user's plan, a package or a region changed. */ plans?: Pick<ChangeTopic, 'changed'>; now?: () => number;
  /** Checks an agent owns right now (the heartbeat's copy lags a handover). */
  ownedCount?: (agentId: string) => number;
  /** SHA-256 of the gRPC CA the agents must trust (hex), carried in printed tokens; null without TLS. */
  caFingerprint?: () => string | null;
  /** PUBLIC_URL, sent with a created token so the CLI prints the install line with it. */
  publicUrl?: string | null;
  /** These agents were just revoked: end their open streams now. */
  onAgentsRevoked?: (agentIds: string[]) => void;
  /** Every workspace with its plan, members and owner (`upfleet workspace list`). */
  workspaces?: () => Promise<AdminWorkspaceRow[]>;
}) {
  const now = deps.now ?? Date.now;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    listWorkspaces: async () => ((await deps.workspaces?.()) ?? []).map((w) => ({ ...w, personal: Boolean(w.personal) })),

    listUsers: async () =>
      (await deps.users.adminList()).map((u) => ({ ...u, two_factor_enabled: Boolean(u.two_factor_enabled) })),

    async setPackage({ email, package: name }: SetPackageBody) {
      const user = await deps.users.byEmail(email);
      if (!user) throw notFound(`No user with email ${email}`);
      const pkg = deps.catalog.packageByName(name);
      if (!pkg) throw notFound(`No package named ${name}; see 'upfleet package list'`);
      await deps.users.setPackage(user.id, pkg.package_id);
      deps.plans?.changed(pkg.package_id);
      return { id: user.id, email: user.email, package_name: pkg.package_name };
    },

    /** A workspace's plan by its id (`upfleet workspace set-package`): a team workspace has no
     *  address of its own to name it by. */
    async setWorkspacePackage(id: number, { package: name }: WorkspaceSetPackageBody) {
      const row = ((await deps.workspaces?.()) ?? []).find((w) => w.id === id);
      if (!row) throw notFound(`No workspace with id ${id}; see 'upfleet workspace list'`);
      const pkg = deps.catalog.packageByName(name);
      if (!pkg) throw notFound(`No package named ${name}; see 'upfleet package list'`);
      await deps.users.setPackage(id, pkg.package_id);
      deps.plans?.changed(pkg.package_id);
      return { id, name: row.name, package_name: pkg.package_name };
    },

    listPackages: () => deps.catalog.listPackages(),

    async listRegions() {
      const live = await deps.agents.live(now());
      return deps.catalog.listRegions().map((r) => ({ ...r, agents_live: live.filter((a) => a.region === regionKey(r)).length }));
    },

    async addRegion({ region, city, primary }: RegionCreateBody) {
      const created = await deps.catalog.addRegion(region, city, primary);
      if (!created) throw conflict(`Region ${region}-${city} already exists`);
      deps.plans?.changed(null);
      return created;
    },

    /**
     * A bootstrap token: expires after `expires_in_seconds` (the schema's default is 24 h; null:
     * never) and allows `max_uses` registrations (default 1; null: any number). The printed token
     * carries the CA's fingerprint (`upf_<secret>.<sha256>`), so an agent can fetch and pin the CA.
     */
    async createAgentToken({ region, expires_in_seconds: ttl, max_uses: uses }: AgentTokenCreateBody) {
      if (!deps.catalog.regionByKey(region)) throw badRequest(`Unknown region ${region || '(none)'}; see 'upfleet region list'`);
      const tokenId = crypto.randomUUID();
      const secret = `upf_${randomToken(24)}`;
      const t = now();
      const expiresAt = typeof ttl === 'number' ? t + ttl * 1000 : null;
      await deps.agents.insertToken(tokenId, sha256(secret), region, t, expiresAt, uses);
      const fp = deps.caFingerprint?.() ?? null;
      return { token_id: tokenId, token: fp ? `${secret}.${fp}` : secret, region, expires_at: iso(expiresAt), max_uses: uses, ca_fingerprint: fp, public_url: deps.publicUrl ?? null };
    },

    listAgentTokens: async () =>
      (await deps.agents.listTokens()).map((t) => ({
        token_id: t.token_id, region: t.region, created_at: iso(t.created_at), expires_at: iso(t.expires_at),
        revoked_at: iso(t.revoked_at), used_count: t.used_count, max_uses: t.max_uses,
      })),

    async revokeAgentToken(tokenId: string) {
      const existing = await deps.agents.tokenById(tokenId);
      if (!existing) throw notFound('Agent token not found');
      const revoked = await deps.agents.revokeToken(tokenId, now());
      if (revoked.length > 0) deps.onAgentsRevoked?.(revoked);
      deps.plans?.changed(null);
      return { token_id: tokenId, revoked_at: iso((await deps.agents.tokenById(tokenId))!.revoked_at) };
    },

    async listAgents() {
      const t = now();
      return (await deps.agents.listAgents()).map((a) => ({
        agent_id: a.agent_id,
        region: a.region,
        hostname: a.hostname,
        version: a.version,
        outdated: a.version === '' || compareVersions(a.version, CONTROL_PLANE_VERSION) < 0,
        status: a.revoked_at !== null ? 'revoked' : a.lease_expires_at !== null && a.lease_expires_at > t ? 'live' : 'lapsed',
        last_heartbeat_at: iso(a.last_heartbeat_at),
        checks_owned: deps.ownedCount ? deps.ownedCount(a.agent_id) : a.checks_owned,
        checks_per_minute: a.checks_per_minute,
        outbox_depth: a.outbox_depth,
        scheduling_lag_ms_p99: a.scheduling_lag_ms_p99,
        browser_checks: a.browser_checks === 1,
        ...(a.browser_unavailable ? { browser_unavailable: a.browser_unavailable } : {}),
      }));
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
