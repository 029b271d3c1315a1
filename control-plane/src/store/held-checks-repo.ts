import type { Db } from './db';

// Which checks each agent holds by its own account, kept across a control-plane restart: a row is
// added when the agent is sent a check and removed only when that agent is sent an update without it,
// so an agent that has not heard of a move yet (still in its reconnect backoff, running its saved
// snapshot) keeps its rows. After a start, an agent's buffered results count only for these checks
// (never for its region's other checks, which would let any registered agent write other customers' results).
export function createHeldChecksRepo(db: Db) {
  const q = {
    all: db.prepare('SELECT check_id, agent_id FROM agent_held_checks'),
    give: db.prepare('INSERT OR IGNORE INTO agent_held_checks (check_id, agent_id) VALUES (?, ?)'),
    take: db.prepare('DELETE FROM agent_held_checks WHERE check_id = ? AND agent_id = ?'),
    ofAgent: db.prepare('SELECT check_id FROM agent_held_checks WHERE agent_id = ?').pluck(),
    forget: db.prepare('DELETE FROM agent_held_checks WHERE agent_id = ?'),
  };
  const change = db.transaction((agentId: string, given: Iterable<string>, taken: Iterable<string>) => {
    for (const id of taken) q.take.run(id, agentId);
    for (const id of given) q.give.run(id, agentId);
  });
  return {
    /** check id → the agents holding it by their own account */
    load(): Map<string, Set<string>> {
      const m = new Map<string, Set<string>>();
      for (const r of q.all.all() as Array<{ check_id: string; agent_id: string }>) {
        let agents = m.get(r.check_id);
        if (!agents) m.set(r.check_id, (agents = new Set()));
        agents.add(r.agent_id);
      }
      return m;
    },
    /** The agent was sent `given` and told to drop `taken`. */
    change: (agentId: string, given: Iterable<string>, taken: Iterable<string>) => change(agentId, given, taken),
    /** The agent now holds exactly `ids`. */
    replace(agentId: string, ids: Set<string>): void {
      const held = new Set(q.ofAgent.all(agentId) as string[]);
      // Only the difference is written: a reconnect that keeps its checks writes nothing.
      change(agentId, [...ids].filter((id) => !held.has(id)), [...held].filter((id) => !ids.has(id)));
    },
    forget: (agentId: string) => void q.forget.run(agentId),
  };
}
export type HeldChecksRepo = ReturnType<typeof createHeldChecksRepo>;
