// This process's part in the cluster: it says it is alive (a row in control_plane_processes) and
// holds or waits for the leader lease, renewing every third of LEADER_LEASE_SECONDS. Features run
// their once-only work while it is held (whileLeader in features/lifecycle.ts); a state change
// made under the lease goes through underLease(), which checks the epoch in the same transaction,
// so a leader that was paused past its lease writes nothing when it wakes.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Transaction } from 'kysely';
import type { Logger } from '../logger';
import { createClusterRepo, type HeldLease } from '../store/cluster-repo';
import type { Sql } from '../store/sql/open';
import type { Schema } from '../store/sql/schema';
import type { LeaderSignal } from '../features/lifecycle';

export const LEADER_LEASE = 'leader';

export interface Leadership extends LeaderSignal {
  /** This process's id in the process list and as the lease's holder. */
  readonly processId: string;
  /** The lease this process holds now, or null. */
  held(): HeldLease | null;
  /** Runs `fn` in a transaction only while this process holds the lease at the epoch it knows (else LeaseLost, nothing written). */
  underLease<T>(fn: (trx: Transaction<Schema>) => Promise<T>): Promise<T>;
}

export interface LeaderLeaseOptions {
  /** The database the processes share (Postgres with DATABASE_URL; SQLite otherwise), known once opened. */
  sql: () => Sql;
  /** SQLite: the DATA_DIR lock already makes this the only process, so it takes the lease at start whoever held it last. */
  alone: boolean;
  ttlMs: number;
  version: string;
  logger: Logger;
  now?: () => number;
  /** Renew on a timer (default); tests call tick() themselves. */
  timer?: boolean;
}

export function createLeaderLease(options: LeaderLeaseOptions) {
  const opts = { ...options, ttlMs: Math.round(options.ttlMs) };
  // Whole milliseconds: the columns are integers on both databases.
  const clock = opts.now ?? Date.now;
  const now = () => Math.floor(clock());
  const log = opts.logger.child({ component: 'cluster' });
  const processId = randomUUID();
  const startedAt = now();
  let lease: HeldLease | null = null;
  /** The local deadline of the lease: past it this process stops acting as leader even before it hears otherwise. */
  let heldUntil = 0;
  const listeners = new Set<(leader: boolean) => void>();
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let first = true;

  const setLeader = (next: HeldLease | null, until: number) => {
    const was = lease !== null;
    // Alone (SQLite), a renewal after a stall takes the lease again with a new epoch; nobody else
    // could have written meanwhile, so the work goes on.
    const changedEpoch = !opts.alone && next && lease && next.epoch !== lease.epoch;
    lease = next;
    heldUntil = until;
    if (changedEpoch) {
      // A new epoch while held: a lapse went unnoticed (a pause); the work restarts under the new one.
      for (const fn of [...listeners]) fn(false);
    }
    if (was !== (next !== null) || changedEpoch) {
      log.info({ leader: next !== null, epoch: next?.epoch ?? null }, next ? 'holding the leader lease' : 'not the leader');
      for (const fn of [...listeners]) fn(next !== null);
    }
  };

  const repo = () => createClusterRepo(opts.sql().db);

  async function tickOnce(): Promise<void> {
    const t = now();
    const r = repo();
    try {
      await r.upsertProcess({ id: processId, host: os.hostname(), pid: process.pid, version: opts.version, started_at: startedAt, last_seen: t });
      // A process unseen for many leases was killed without a stop; its row would show it forever.
      await r.pruneProcesses(t - Math.max(10 * opts.ttlMs, 60_000));
      if (opts.alone && first) {
        const row = await r.seize(LEADER_LEASE, processId, t, opts.ttlMs);
        first = false;
        setLeader({ name: row.name, holder: row.holder, epoch: row.epoch }, row.expires_at);
        return;
      }
      first = false;
      const c = await r.claim(LEADER_LEASE, processId, t, opts.ttlMs);
      setLeader(c.held ? { name: c.lease.name, holder: c.lease.holder, epoch: c.lease.epoch } : null, c.held ? c.lease.expires_at : 0);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'leader lease renewal failed');
      if (lease && now() >= heldUntil) setLeader(null, 0);
    }
  }

  /** Alone, the lease never lapses for this process's own purposes (the DATA_DIR lock excludes others). */
  const live = () => lease !== null && (opts.alone || now() < heldUntil);

  const leadership: Leadership & { start(): Promise<void>; stop(): Promise<void>; tick(): Promise<void> } = {
    processId,
    isLeader: live,
    held: () => (live() ? lease : null),
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    async underLease(fn) {
      if (opts.alone && lease && now() >= heldUntil) await leadership.tick();
      const l = lease;
      if (!l || !live()) throw new Error('this process does not hold the leader lease');
      return repo().underLease(l, now(), fn);
    },
    /** One renewal (or claim) now; ticks never overlap. */
    tick() {
      ticking ??= tickOnce().finally(() => {
        ticking = null;
      });
      return ticking;
    },
    async start() {
      await leadership.tick();
      if (opts.timer === false) return;
      timer = setInterval(() => void leadership.tick(), Math.max(200, Math.floor(opts.ttlMs / 3)));
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await ticking;
      const r = repo();
      const l = lease;
      setLeader(null, 0);
      try {
        if (l) await r.release(l);
        await r.removeProcess(processId);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'leaving the cluster failed');
      }
    },
  };
  return leadership;
}
export type LeaderLease = ReturnType<typeof createLeaderLease>;
