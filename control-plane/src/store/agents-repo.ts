// Agents and their bootstrap tokens. Kysely, so the same code runs on SQLite and on Postgres
// (agents-repo.test.ts runs it on both). The gRPC hot path reads agents through the identity cache
// (grpc/agent-identity-cache.ts) and placement through the live-agents snapshot (services/live-agents.ts).
import type { Kysely, Selectable } from 'kysely';
import type { AgentsTable, AgentTokensTable, Schema } from './sql/schema';

export type AgentRow = Selectable<AgentsTable>;
export type AgentTokenRow = Selectable<AgentTokensTable>;

export interface HeartbeatStats {
  checks_owned: number;
  checks_per_minute: number;
  outbox_depth: number;
  lag: number;
  browser_checks?: boolean;
  browser_unavailable?: string;
}

export function createAgentsRepo(db: Kysely<Schema>) {
  return {
    insertToken: async (id: string, hash: string, region: string, now: number, expiresAt: number | null, maxUses: number | null): Promise<void> => {
      await db.insertInto('agent_tokens')
        .values({ token_id: id, token_hash: hash, region, created_at: now, expires_at: expiresAt, revoked_at: null, max_uses: maxUses })
        .execute();
    },
    tokenByHash: (hash: string): Promise<AgentTokenRow | undefined> =>
      db.selectFrom('agent_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst(),
    tokenById: (id: string): Promise<AgentTokenRow | undefined> =>
      db.selectFrom('agent_tokens').selectAll().where('token_id', '=', id).executeTakeFirst(),
    listTokens: (): Promise<AgentTokenRow[]> => db.selectFrom('agent_tokens').selectAll().orderBy('created_at').orderBy('token_id').execute(),
    /** Revoking a bootstrap token also revokes the agents that registered with it; returns their ids.
     *  The conditional UPDATE is the compare-and-set: of two revocations, one revokes the agents. */
    revokeToken: (id: string, now: number): Promise<string[]> =>
      db.transaction().execute(async (trx) => {
        const changed = await trx.updateTable('agent_tokens').set({ revoked_at: now })
          .where('token_id', '=', id).where('revoked_at', 'is', null)
          .executeTakeFirst();
        if (Number(changed.numUpdatedRows) !== 1) return [];
        const agents = await trx.updateTable('agents').set({ revoked_at: now })
          .where('token_id', '=', id).where('revoked_at', 'is', null)
          .returning('agent_id')
          .execute();
        return agents.map((a) => a.agent_id).sort();
      }),
    /** Spends one use of the token and records the agent; false (nothing written) when the token is used up.
     *  The use is a conditional UPDATE: two processes registering with a single-use token, one wins. */
    registerAgent: (a: { agentId: string; secretHash: string; region: string; hostname: string; version: string; tokenId: string }, now: number): Promise<boolean> =>
      db.transaction().execute(async (trx) => {
        const used = await trx.updateTable('agent_tokens').set((eb) => ({ used_count: eb('used_count', '+', 1) }))
          .where('token_id', '=', a.tokenId)
          .where((eb) => eb.or([eb('max_uses', 'is', null), eb('used_count', '<', eb.ref('max_uses'))]))
          .executeTakeFirst();
        if (Number(used.numUpdatedRows) !== 1) return false;
        await trx.insertInto('agents').values({
          agent_id: a.agentId, secret_hash: a.secretHash, region: a.region, hostname: a.hostname, version: a.version, token_id: a.tokenId,
          created_at: now, last_heartbeat_at: null, lease_expires_at: null, revoked_at: null,
        }).execute();
        return true;
      }),
    agent: (id: string): Promise<AgentRow | undefined> => db.selectFrom('agents').selectAll().where('agent_id', '=', id).executeTakeFirst(),
    listAgents: (): Promise<AgentRow[]> => db.selectFrom('agents').selectAll().orderBy('region').orderBy('created_at').orderBy('agent_id').execute(),
    heartbeat: async (agentId: string, now: number, leaseUntil: number, s: HeartbeatStats): Promise<void> => {
      await db.updateTable('agents').set({
        last_heartbeat_at: now, lease_expires_at: leaseUntil, checks_owned: s.checks_owned, checks_per_minute: s.checks_per_minute,
        outbox_depth: s.outbox_depth, scheduling_lag_ms_p99: s.lag, browser_checks: s.browser_checks ? 1 : 0, browser_unavailable: s.browser_unavailable ?? '',
      }).where('agent_id', '=', agentId).execute();
    },
    touch: async (agentId: string, now: number, leaseUntil: number): Promise<void> => {
      await db.updateTable('agents').set({ last_heartbeat_at: now, lease_expires_at: leaseUntil }).where('agent_id', '=', agentId).execute();
    },
    /** The release the agent said it runs when it last connected. */
    setVersion: async (agentId: string, version: string): Promise<void> => {
      await db.updateTable('agents').set({ version }).where('agent_id', '=', agentId).execute();
    },
    /** Agents with a live lease (not revoked), with the time it runs out. */
    live: (now: number): Promise<Array<{ agent_id: string; region: string; lease_expires_at: number }>> =>
      db.selectFrom('agents').select(['agent_id', 'region', 'lease_expires_at'])
        .where('revoked_at', 'is', null).where('lease_expires_at', '>', now)
        .orderBy('agent_id')
        .$narrowType<{ lease_expires_at: number }>()
        .execute(),
  };
}
export type AgentsRepo = ReturnType<typeof createAgentsRepo>;
