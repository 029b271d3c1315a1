import type { Db } from './db';

// Which agent each check was last given to, kept across a control-plane restart: after a start,
// an agent's buffered results count only for the checks it held before (never for its region's
// other checks, which would let any registered agent write other customers' results).
export function createHeldChecksRepo(db: Db) {
  const q = {
    all: db.prepare('SELECT check_id, agent_id FROM agent_held_checks'),
    give: db.prepare('INSERT INTO agent_held_checks (check_id, agent_id) VALUES (?, ?) ON CONFLICT (check_id) DO UPDATE SET agent_id = excluded.agent_id'),
    take: db.prepare('DELETE FROM agent_held_checks WHERE check_id = ? AND agent_id = ?'),
    ofAgent: db.prepare('SELECT check_id FROM agent_held_checks WHERE agent_id = ?').pluck(),
    forget: db.prepare('DELETE FROM agent_held_checks WHERE agent_id = ?'),
  };
  const change = db.transaction((agentId: string, given: Iterable<string>, taken: Iterable<string>) => {
    for (const id of taken) q.take.run(id, agentId);
    for (const id of given) q.give.run(id, agentId);
  });
  return {
    /** check id → the agent that held it last */
    load(): Map<string, string> {
      const m = new Map<string, string>();
      for (const r of q.all.all() as Array<{ check_id: string; agent_id: string }>) m.set(r.check_id, r.agent_id);
      return m;
    },
    /** The agent was given `given` (taking them from whoever had them) and lost `taken`. */
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
