// The leader lease and the process list on both databases: one holder among contenders, a
// takeover with a higher epoch once the holder stops renewing, and a write under a stale epoch
// that changes nothing.
import { describe, expect, it } from 'vitest';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { createClusterRepo, LeaseLost } from './cluster-repo';

const TTL = 10_000;
const proc = (id: string, lastSeen: number) => ({ id, host: 'h', pid: 1, version: '1.0.0', started_at: 1000, last_seen: lastSeen });

describe.each(SQL_DIALECTS)('cluster repo on $title', (d) => {
  const sql = freshSql(d);

  it('gives the lease to exactly one of several contenders claiming at the same moment', async () => {
    const repo = createClusterRepo(sql().db);
    const claims = await Promise.all(['a', 'b', 'c'].map((h) => repo.claim('leader', h, 1000, TTL)));
    expect(claims.filter((c) => c.held)).toHaveLength(1);
    const holder = ['a', 'b', 'c'][claims.findIndex((c) => c.held)];
    expect(await repo.current('leader')).toEqual({ name: 'leader', holder, epoch: 1, acquired_at: 1000, expires_at: 1000 + TTL });
    // Every loser sees who holds it.
    for (const c of claims) expect(c.lease.holder).toBe(holder);
  });

  it('renews for its holder within the lease, keeping the epoch; refuses others until it lapses', async () => {
    const repo = createClusterRepo(sql().db);
    expect((await repo.claim('leader', 'a', 1000, TTL)).held).toBe(true);
    expect(await repo.claim('leader', 'a', 4000, TTL)).toEqual({ held: true, lease: { name: 'leader', holder: 'a', epoch: 1, acquired_at: 1000, expires_at: 14_000 } });
    expect(await repo.claim('leader', 'b', 13_999, TTL)).toMatchObject({ held: false, lease: { holder: 'a', epoch: 1 } });
  });

  it('lets another take over with a higher epoch once the holder stops renewing; the old holder then gets nothing', async () => {
    const repo = createClusterRepo(sql().db);
    await repo.claim('leader', 'a', 1000, TTL);
    // a pauses; at its expiry b takes over, whatever a's clock says afterwards
    const taken = await repo.claim('leader', 'b', 11_000, TTL);
    expect(taken).toEqual({ held: true, lease: { name: 'leader', holder: 'b', epoch: 2, acquired_at: 11_000, expires_at: 21_000 } });
    expect(await repo.claim('leader', 'a', 12_000, TTL)).toMatchObject({ held: false, lease: { holder: 'b', epoch: 2 } });
    // Racing for a lapsed lease: one wins, the epoch rises once.
    const race = await Promise.all([repo.claim('leader', 'a', 30_000, TTL), repo.claim('leader', 'c', 30_000, TTL)]);
    expect(race.filter((c) => c.held)).toHaveLength(1);
    expect((await repo.current('leader'))?.epoch).toBe(3);
  });

  it('a write under a stale epoch changes nothing and says so; under the current epoch it is written', async () => {
    const repo = createClusterRepo(sql().db);
    const a = (await repo.claim('leader', 'a', 1000, TTL)).lease;
    const b = (await repo.claim('leader', 'b', 11_000, TTL)).lease;
    // a wakes after its pause still believing its own clock (before its expiry): the epoch decides.
    await expect(repo.underLease({ name: 'leader', holder: 'a', epoch: a.epoch }, 5000, async (trx) => {
      await trx.insertInto('control_plane_processes').values(proc('written-by-a', 5000)).execute();
    })).rejects.toBeInstanceOf(LeaseLost);
    // Same holder name, old epoch (a takeover by a and back): also refused.
    await expect(repo.underLease({ name: 'leader', holder: 'b', epoch: 1 }, 12_000, async () => undefined)).rejects.toBeInstanceOf(LeaseLost);
    // The holder past its own expiry: refused too.
    await expect(repo.underLease({ name: 'leader', holder: 'b', epoch: b.epoch }, 21_000, async () => undefined)).rejects.toBeInstanceOf(LeaseLost);
    await repo.underLease({ name: 'leader', holder: 'b', epoch: b.epoch }, 12_000, async (trx) => {
      await trx.insertInto('control_plane_processes').values(proc('written-by-b', 12_000)).execute();
    });
    expect((await repo.listProcesses()).map((p) => p.id)).toEqual(['written-by-b']);
  });

  it('a write under the lease that fails is rolled back whole', async () => {
    const repo = createClusterRepo(sql().db);
    const a = (await repo.claim('leader', 'a', 1000, TTL)).lease;
    await expect(repo.underLease(a, 2000, async (trx) => {
      await trx.insertInto('control_plane_processes').values(proc('half', 2000)).execute();
      throw new Error('the rest failed');
    })).rejects.toThrow('the rest failed');
    expect(await repo.listProcesses()).toEqual([]);
  });

  it('a released lease is taken at once by another, and seize takes it from anyone with a new epoch', async () => {
    const repo = createClusterRepo(sql().db);
    const a = (await repo.claim('leader', 'a', 1000, TTL)).lease;
    await repo.release(a);
    expect(await repo.claim('leader', 'b', 1500, TTL)).toMatchObject({ held: true, lease: { holder: 'b', epoch: 2 } });
    expect(await repo.seize('leader', 'c', 1600, TTL)).toEqual({ name: 'leader', holder: 'c', epoch: 3, acquired_at: 1600, expires_at: 11_600 });
    expect(await repo.seize('other', 'c', 1600, TTL)).toMatchObject({ name: 'other', epoch: 1 });
  });

  it('keeps one row per process, updated in place, and prunes those not seen for a while', async () => {
    const repo = createClusterRepo(sql().db);
    await repo.upsertProcess(proc('p1', 1000));
    await repo.upsertProcess(proc('p2', 1000));
    await repo.upsertProcess({ ...proc('p1', 5000), version: '1.1.0' });
    expect(await repo.listProcesses()).toEqual([{ ...proc('p1', 5000), version: '1.1.0' }, proc('p2', 1000)]);
    expect(await repo.pruneProcesses(2000)).toBe(1);
    await repo.removeProcess('p1');
    expect(await repo.listProcesses()).toEqual([]);
  });
});
