// The leader lease as features see it, on both databases with a fake clock: of two processes one
// runs the once-only work; when it stops renewing the other takes over with a higher epoch and
// starts the work, the first stops its own and its writes under the old epoch are refused.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { whileLeader } from '../features/lifecycle';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { createClusterRepo } from '../store/cluster-repo';
import { createLeaderLease } from './leader-lease';

const TTL = 10_000;

describe.each(SQL_DIALECTS)('leader lease on $title', (d) => {
  const sql = freshSql(d);

  function contender(clock: { t: number }, alone = false) {
    const lease = createLeaderLease({ sql, alone, ttlMs: TTL, version: '9.9.9', logger: createLogger(process.env.DEBUG_LEASE ? 'debug' : 'silent'), now: () => clock.t, timer: false });
    const work: string[] = [];
    const gated = whileLeader(lease, { start: () => void work.push('start'), stop: () => void work.push('stop') });
    return { lease, work, gated };
  }

  it('two processes: one leads and runs the work; when it stops renewing the other takes over with a higher epoch', async () => {
    const clock = { t: 1_000_000 };
    const a = contender(clock);
    const b = contender(clock);
    await a.lease.start();
    await b.lease.start();
    await a.gated.start();
    await b.gated.start();
    expect([a.lease.isLeader(), b.lease.isLeader()]).toEqual([true, false]);
    expect(a.work).toEqual(['start']);
    expect(b.work).toEqual([]);
    const first = a.lease.held()!.epoch;

    // Renewals within the lease keep it where it is.
    clock.t += Math.floor(TTL / 3);
    await a.lease.tick();
    await b.lease.tick();
    expect([a.lease.isLeader(), b.lease.isLeader()]).toEqual([true, false]);

    // a is paused: no renewal for longer than the lease.
    clock.t += TTL + 1;
    expect(a.lease.isLeader()).toBe(false); // its own deadline passed: it stops acting as leader
    await b.lease.tick();
    expect(b.lease.isLeader()).toBe(true);
    expect(b.lease.held()!.epoch).toBeGreaterThan(first);
    await Promise.resolve();
    expect(b.work).toEqual(['start']);

    // a wakes: its next renewal finds the lease taken, and its work stops.
    await a.lease.tick();
    await a.gated.stop(); // flushes the queued change
    expect(a.work).toEqual(['start', 'stop']);
    await expect(a.lease.underLease(async () => undefined)).rejects.toThrow('does not hold the leader lease');

    // Both list themselves, with b as the holder.
    const repo = createClusterRepo(sql().db);
    expect((await repo.listProcesses()).map((p) => p.id).sort()).toEqual([a.lease.processId, b.lease.processId].sort());
    expect((await repo.current('leader'))?.holder).toBe(b.lease.processId);

    // A clean stop hands over at once and leaves the list.
    await b.gated.stop();
    await b.lease.stop();
    await a.lease.tick();
    expect(a.lease.isLeader()).toBe(true);
    expect((await repo.listProcesses()).map((p) => p.id)).toEqual([a.lease.processId]);
    await a.lease.stop();
  });

  it('a write under the lease goes through for the holder and is refused to a paused holder whose lease was taken', async () => {
    const clock = { t: 2_000_000 };
    const a = contender(clock);
    const b = contender(clock);
    await a.lease.start();
    await a.lease.underLease(async (trx) => {
      await trx.updateTable('control_plane_processes').set({ version: 'written by a' }).where('id', '=', a.lease.processId).execute();
    });
    // a's lease runs out while it sleeps; b takes over; a's clock is wound back as if the pause never happened.
    clock.t += TTL + 1;
    await b.lease.start();
    clock.t -= TTL;
    await expect(a.lease.underLease(async (trx) => {
      await trx.updateTable('control_plane_processes').set({ version: 'stale write' }).where('id', '=', a.lease.processId).execute();
    })).rejects.toThrow(/no longer held/);
    const rows = await createClusterRepo(sql().db).listProcesses();
    expect(rows.find((p) => p.id === a.lease.processId)?.version).toBe('written by a');
    await b.lease.stop();
    await a.lease.stop();
  });

  it('alone (SQLite under the DATA_DIR lock) the process takes the lease at start whoever held it, with a new epoch', async () => {
    const clock = { t: 3_000_000 };
    const gone = contender(clock);
    await gone.lease.start(); // a process that died holding it
    const epoch = gone.lease.held()!.epoch;
    const a = contender(clock, true);
    await a.lease.start();
    await a.gated.start();
    expect(a.lease.isLeader()).toBe(true);
    expect(a.lease.held()!.epoch).toBe(epoch + 1);
    expect(a.work).toEqual(['start']);
    // A stall past the lease does not stop the work of a process that is alone.
    clock.t += 3 * TTL;
    expect(a.lease.isLeader()).toBe(true);
    await a.lease.tick();
    await a.lease.underLease(async () => undefined);
    expect(a.work).toEqual(['start']);
    await a.gated.stop();
    await a.lease.stop();
  });
});
