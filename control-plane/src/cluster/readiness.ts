// Readiness for load balancers: may this process take traffic now? Each part is checked with a
// bound (a hung database must not hang the probe) and reported by name with a fixed word, never
// an error text (those may carry a URL with a password).
import { MIGRATIONS } from '../store/migrations';
import type { Sql } from '../store/sql/open';

export type PartState = 'ok' | 'unreachable' | 'behind' | 'timeout';

export interface Readiness {
  check(): Promise<{ ready: boolean; parts: Record<string, PartState> }>;
}

/** A part throws (or rejects) when it is not ready; `MigrationsBehind` says the schema is older than the code. */
export type ReadinessProbe = () => Promise<void>;

export class MigrationsBehind extends Error {}

export function createReadiness(probes: Record<string, ReadinessProbe>, opts: { timeoutMs?: number } = {}): Readiness {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const one = async (probe: ReadinessProbe): Promise<PartState> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<PartState>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([probe().then((): PartState => 'ok', (err: unknown): PartState => (err instanceof MigrationsBehind ? 'behind' : 'unreachable')), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async check() {
      const names = Object.keys(probes);
      const states = await Promise.all(names.map((n) => one(probes[n])));
      const parts = Object.fromEntries(names.map((n, i) => [n, states[i]])) as Record<string, PartState>;
      return { ready: states.every((s) => s === 'ok'), parts };
    },
  };
}

/** Reachable, and every migration this code knows is applied (a newer schema stops the start instead). */
export function databaseProbe(sql: Sql): ReadinessProbe {
  return async () => {
    const rows = await sql.db.selectFrom('schema_migrations').select('id').execute();
    const applied = new Set(rows.map((r) => Number(r.id)));
    if (MIGRATIONS.some((m) => !applied.has(m.id))) throw new MigrationsBehind();
  };
}
