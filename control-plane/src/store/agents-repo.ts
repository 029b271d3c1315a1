import type { Db } from './db';

export interface AgentRow {
  agent_id: string;
  secret_hash: string;
  region: string;
  hostname: string;
  version: string;
  token_id: string | null;
  created_at: number;
  last_heartbeat_at: number | null;
  lease_expires_at: number | null;
  checks_owned: number;
  checks_per_minute: number;
  outbox_depth: number;
  scheduling_lag_ms_p99: number;
  revoked_at: number | null;
  /** 1 when its last heartbeat said it can run browser checks */
  browser_checks: number;
  /** why it cannot, from its last heartbeat */
  browser_unavailable: string;
}
export interface AgentTokenRow {
  token_id: string;
  token_hash: string;
  region: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  used_count: number;
  /** registrations allowed; null: any number */
  max_uses: number | null;
}

export function createAgentsRepo(db: Db) {
  const q = {
    insertToken: db.prepare('INSERT INTO agent_tokens (token_id, token_hash, region, created_at, expires_at, max_uses) VALUES (?, ?, ?, ?, ?, ?)'),
    tokenByHash: db.prepare('SELECT * FROM agent_tokens WHERE token_hash = ?'),
    tokens: db.prepare('SELECT * FROM agent_tokens ORDER BY created_at'),
    revokeToken: db.prepare('UPDATE agent_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL'),
    tokenById: db.prepare('SELECT * FROM agent_tokens WHERE token_id = ?'),
    useToken: db.prepare('UPDATE agent_tokens SET used_count = used_count + 1 WHERE token_id = ? AND (max_uses IS NULL OR used_count < max_uses)'),
    revokeAgentsOfToken: db.prepare('UPDATE agents SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL RETURNING agent_id').pluck(),
    insertAgent: db.prepare(`INSERT INTO agents (agent_id, secret_hash, region, hostname, version, token_id, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    agent: db.prepare('SELECT * FROM agents WHERE agent_id = ?'),
    agents: db.prepare('SELECT * FROM agents ORDER BY region, created_at'),
    heartbeat: db.prepare(`UPDATE agents SET last_heartbeat_at = @now, lease_expires_at = @lease, checks_owned = @checks_owned,
      checks_per_minute = @checks_per_minute, outbox_depth = @outbox_depth, scheduling_lag_ms_p99 = @lag,
      browser_checks = @browser_checks, browser_unavailable = @browser_unavailable WHERE agent_id = @agent_id`),
    touch: db.prepare('UPDATE agents SET last_heartbeat_at = ?, lease_expires_at = ? WHERE agent_id = ?'),
    setVersion: db.prepare('UPDATE agents SET version = ? WHERE agent_id = ?'),
    liveInRegion: db.prepare('SELECT agent_id FROM agents WHERE region = ? AND revoked_at IS NULL AND lease_expires_at > ? ORDER BY agent_id').pluck(),
    live: db.prepare('SELECT agent_id, region FROM agents WHERE revoked_at IS NULL AND lease_expires_at > ?'),
  };
  return {
    insertToken: (id: string, hash: string, region: string, now: number, expiresAt: number | null, maxUses: number | null) =>
      q.insertToken.run(id, hash, region, now, expiresAt, maxUses),
    tokenByHash: (hash: string) => q.tokenByHash.get(hash) as AgentTokenRow | undefined,
    tokenById: (id: string) => q.tokenById.get(id) as AgentTokenRow | undefined,
    listTokens: () => q.tokens.all() as AgentTokenRow[],
    /** Revoking a bootstrap token also revokes the agents that registered with it; returns their ids. */
    revokeToken: db.transaction((id: string, now: number): string[] => {
      const changed = q.revokeToken.run(now, id).changes === 1;
      return changed ? (q.revokeAgentsOfToken.all(now, id) as string[]) : [];
    }),
    /** Spends one use of the token and records the agent; false (nothing written) when the token is used up. */
    registerAgent: db.transaction((a: { agentId: string; secretHash: string; region: string; hostname: string; version: string; tokenId: string }, now: number): boolean => {
      if (q.useToken.run(a.tokenId).changes !== 1) return false;
      q.insertAgent.run(a.agentId, a.secretHash, a.region, a.hostname, a.version, a.tokenId, now);
      return true;
    }),
    agent: (id: string) => q.agent.get(id) as AgentRow | undefined,
    listAgents: () => q.agents.all() as AgentRow[],
    heartbeat: (agentId: string, now: number, leaseUntil: number, s: { checks_owned: number; checks_per_minute: number; outbox_depth: number; lag: number; browser_checks?: boolean; browser_unavailable?: string }) =>
      q.heartbeat.run({ agent_id: agentId, now, lease: leaseUntil, ...s, browser_checks: s.browser_checks ? 1 : 0, browser_unavailable: s.browser_unavailable ?? '' }),
    touch: (agentId: string, now: number, leaseUntil: number) => q.touch.run(now, leaseUntil, agentId),
    /** The release the agent said it runs when it last connected. */
    setVersion: (agentId: string, version: string) => void q.setVersion.run(version, agentId),
    liveInRegion: (region: string, now: number) => q.liveInRegion.all(region, now) as string[],
    live: (now: number) => q.live.all(now) as Array<{ agent_id: string; region: string }>,
  };
}
export type AgentsRepo = ReturnType<typeof createAgentsRepo>;
