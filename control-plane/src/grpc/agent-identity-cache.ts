// Agent credentials as every gRPC call checks them. Each call (every heartbeat, every results batch)
// would otherwise read the agents table, so the row is cached in memory for a short TTL.
// A revocation on this process calls forget() and is refused at once; another process of a
// cluster re-reads the row when its entry expires (at most `ttlMs`, 5 s by default), and its open
// streams end at their next batch (report-results' stillAllowed reads through this cache).
import type { AgentRow, AgentsRepo } from '../store/agents-repo';

export type AgentIdentity = Pick<AgentRow, 'agent_id' | 'secret_hash' | 'region' | 'created_at' | 'revoked_at'>;

export const AGENT_IDENTITY_TTL_MS = 5000;

export function createAgentIdentityCache(deps: { agents: Pick<AgentsRepo, 'agent'>; ttlMs?: number; now?: () => number }) {
  const ttl = deps.ttlMs ?? AGENT_IDENTITY_TTL_MS;
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { identity: AgentIdentity; until: number }>();
  const refreshing = new Set<string>();
  return {
    /** The agent's identity, or undefined for an unknown id (unknown ids are not cached: a new
     *  agent registered on another process is known at its first call). */
    async get(agentId: string): Promise<AgentIdentity | undefined> {
      const hit = cache.get(agentId);
      if (hit && hit.until > now()) return hit.identity;
      const row = await deps.agents.agent(agentId);
      if (!row) {
        cache.delete(agentId);
        return undefined;
      }
      const identity = { agent_id: row.agent_id, secret_hash: row.secret_hash, region: row.region, created_at: row.created_at, revoked_at: row.revoked_at };
      cache.set(agentId, { identity, until: now() + ttl });
      // A fleet's agents are few; expired entries of agents gone quiet go on the next miss.
      if (cache.size > 10_000) for (const [id, e] of cache) if (e.until <= now()) cache.delete(id);
      return identity;
    },
    /**
     * For the per-batch check of an open stream, which must not wait for the database: the cached
     * answer, refreshed in the background once it is older than the TTL (so a revocation made on
     * another process ends the stream at a batch after the next refresh).
     */
    allowedNow(agentId: string): boolean {
      const hit = cache.get(agentId);
      if (!hit || hit.until <= now()) {
        if (!refreshing.has(agentId)) {
          refreshing.add(agentId);
          void this.get(agentId).catch(() => undefined).finally(() => refreshing.delete(agentId));
        }
      }
      return hit ? hit.identity.revoked_at === null : true;
    },
    /** Revoked on this process: the next call reads the row again (and finds it revoked). */
    forget(agentIds: string[]): void {
      for (const id of agentIds) cache.delete(id);
    },
  };
}
export type AgentIdentityCache = ReturnType<typeof createAgentIdentityCache>;
