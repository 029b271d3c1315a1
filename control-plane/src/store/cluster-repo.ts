// The leader lease and the process list, in Kysely so the same compare-and-set runs on SQLite and
// Postgres (cluster-repo.test.ts runs it on both). Every change of holder is one conditional
// UPDATE: of two processes racing for a lapsed lease, the database lets exactly one match.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { ControlPlaneProcessesTable, LeaderLeasesTable, Schema } from './sql/schema';

export type LeaseRow = LeaderLeasesTable;
export type ProcessRow = ControlPlaneProcessesTable;

/** What a process knows of its own lease: writes made under it are checked against this epoch. */
export interface HeldLease {
  name: string;
  holder: string;
  epoch: number;
}

export interface Claim {
  held: boolean;
  /** The lease as it stands after the claim (whoever holds it). */
  lease: LeaseRow;
}

/** A write under the lease found it taken over (or lapsed): the transaction is rolled back. */
export class LeaseLost extends Error {
  constructor(lease: HeldLease) {
    super(`the ${lease.name} lease at epoch ${lease.epoch} is no longer held by this process`);
  }
}

const LEASE_COLUMNS = ['name', 'holder', 'epoch', 'acquired_at', 'expires_at'] as const;

export function createClusterRepo(db: Kysely<Schema>) {
  const current = (q: Kysely<Schema>, name: string) => q.selectFrom('leader_leases').select(LEASE_COLUMNS).where('name', '=', name).executeTakeFirst();
  return {
    current: (name: string): Promise<LeaseRow | undefined> => current(db, name),

    /**
     * Renews the lease when this holder has it and it has not lapsed; takes it with a new epoch when
     * it is free or lapsed (also its own lapsed one: another may have held it meanwhile). `now` is
     * the caller's clock: processes of one cluster keep their clocks in step (NTP).
     */
    async claim(name: string, holder: string, now: number, ttlMs: number): Promise<Claim> {
      const expiresAt = now + ttlMs;
      const created = await db.insertInto('leader_leases')
        .values({ name, holder, epoch: 1, acquired_at: now, expires_at: expiresAt })
        .onConflict((oc) => oc.column('name').doNothing())
        .returning(LEASE_COLUMNS)
        .executeTakeFirst();
      if (created) return { held: true, lease: created };
      const renewed = await db.updateTable('leader_leases').set({ expires_at: expiresAt })
        .where('name', '=', name).where('holder', '=', holder).where('expires_at', '>', now)
        .returning(LEASE_COLUMNS)
        .executeTakeFirst();
      if (renewed) return { held: true, lease: renewed };
      const taken = await db.updateTable('leader_leases')
        .set({ holder, epoch: sql<number>`epoch + 1`, acquired_at: now, expires_at: expiresAt })
        .where('name', '=', name).where('expires_at', '<=', now)
        .returning(LEASE_COLUMNS)
        .executeTakeFirst();
      if (taken) return { held: true, lease: taken };
      const lease = await current(db, name);
      if (!lease) throw new Error(`lease ${name} vanished while being claimed`);
      return { held: false, lease };
    },

    /** Takes the lease whoever holds it, with a new epoch: only for a database one process can open (SQLite under the DATA_DIR lock). */
    async seize(name: string, holder: string, now: number, ttlMs: number): Promise<LeaseRow> {
      return db.insertInto('leader_leases')
        .values({ name, holder, epoch: 1, acquired_at: now, expires_at: now + ttlMs })
        .onConflict((oc) => oc.column('name').doUpdateSet({
          holder, epoch: sql<number>`leader_leases.epoch + 1`, acquired_at: now, expires_at: now + ttlMs,
        }))
        .returning(LEASE_COLUMNS)
        .executeTakeFirstOrThrow();
    },

    /** Lets the lease lapse now (a clean stop), so another process takes over at its next claim. */
    async release(lease: HeldLease): Promise<void> {
      await db.updateTable('leader_leases').set({ expires_at: 0 })
        .where('name', '=', lease.name).where('holder', '=', lease.holder).where('epoch', '=', lease.epoch)
        .execute();
    },

    /**
     * Runs `fn` in a transaction that first checks the lease is still this holder's at this epoch and
     * not lapsed; otherwise nothing is written and LeaseLost is thrown. On Postgres the check also
     * locks the lease row, so a takeover waits for this transaction to end.
     */
    underLease<T>(lease: HeldLease, now: number, fn: (trx: Transaction<Schema>) => Promise<T>): Promise<T> {
      return db.transaction().execute(async (trx) => {
        const checked = await trx.updateTable('leader_leases').set({ expires_at: sql<number>`expires_at` })
          .where('name', '=', lease.name).where('holder', '=', lease.holder).where('epoch', '=', lease.epoch).where('expires_at', '>', now)
          .executeTakeFirst();
        if (Number(checked.numUpdatedRows) !== 1) throw new LeaseLost(lease);
        return fn(trx);
      });
    },

    async upsertProcess(p: ProcessRow): Promise<void> {
      await db.insertInto('control_plane_processes').values(p)
        .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen: p.last_seen, host: p.host, pid: p.pid, version: p.version }))
        .execute();
    },
    async removeProcess(id: string): Promise<void> {
      await db.deleteFrom('control_plane_processes').where('id', '=', id).execute();
    },
    /** Rows of processes not seen since `before` go: a process killed without a stop leaves one. */
    async pruneProcesses(before: number): Promise<number> {
      const r = await db.deleteFrom('control_plane_processes').where('last_seen', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    listProcesses: (): Promise<ProcessRow[]> =>
      db.selectFrom('control_plane_processes').selectAll().orderBy('started_at').orderBy('id').execute(),
  };
}
export type ClusterRepo = ReturnType<typeof createClusterRepo>;
