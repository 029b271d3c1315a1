// Which agents hold a live lease, by region, as the assignment engine reads it on every placement
// and tick. The engine is synchronous and runs per check, so it reads this in-memory snapshot, never
// the database: the snapshot is reloaded from the agents table once a second (agents that heartbeat
// to another process of a cluster appear within that) and updated at once by this process's own
// heartbeats and revocations.
import type { AgentsRepo } from '../store/agents-repo';

interface Lease { region: string; until: number; notedAt: number }

export function createLiveAgents(deps: { agents: Pick<AgentsRepo, 'live'>; now?: () => number }) {
  const now = deps.now ?? Date.now;
  let leases = new Map<string, Lease>();
  /** Bumped on every local change: a reload that started before it keeps the local entry. */
  let seq = 0;
  let reloading: Promise<void> | null = null;
  /** Agents revoked here, with the seq of the revocation, until a reload that began after it ends. */
  const forgotten = new Map<string, number>();

  async function load(): Promise<void> {
    const startedAt = seq;
    const rows = await deps.agents.live(now());
    const next = new Map<string, Lease>();
    for (const r of rows) next.set(r.agent_id, { region: r.region, until: r.lease_expires_at, notedAt: startedAt });
    // A heartbeat or revocation noted while the query ran is newer than what it read.
    for (const [id, l] of leases) if (l.notedAt > startedAt) next.set(id, l);
    for (const [id, at] of forgotten) if (at > startedAt) next.delete(id);
    leases = next;
    for (const [id, at] of forgotten) if (at <= startedAt) forgotten.delete(id);
  }

  return {
    /** Reloads from the database; concurrent callers share one query. */
    reload(): Promise<void> {
      reloading ??= load().finally(() => {
        reloading = null;
      });
      return reloading;
    },
    /** This process just extended the agent's lease (its heartbeat or watch was written). */
    noteLease(agentId: string, region: string, until: number): void {
      leases.set(agentId, { region, until, notedAt: ++seq });
    },
    /** Revoked here: it is no longer live, even if a reload in flight read it before the revocation. */
    forget(agentIds: string[]): void {
      for (const id of agentIds) {
        leases.delete(id);
        forgotten.set(id, ++seq);
      }
    },
    /** region → the agents whose lease has not run out. */
    byRegion(): Map<string, Set<string>> {
      const t = now();
      const out = new Map<string, Set<string>>();
      for (const [id, l] of leases) {
        if (l.until <= t) continue;
        let set = out.get(l.region);
        if (!set) out.set(l.region, (set = new Set()));
        set.add(id);
      }
      return out;
    },
  };
}
export type LiveAgents = ReturnType<typeof createLiveAgents>;
