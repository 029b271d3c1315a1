// GET /api/admin/cluster: the processes, their versions and the lease holder. Alone on SQLite the
// one process holds the lease; two control planes on one Postgres (DATABASE_URL) list each other,
// exactly one holds the lease, and when it stops the other takes over with a higher epoch.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_PLANE_VERSION } from '../version';
import { startHarness, type Harness } from '../testing/harness';
import { postgresMissing, startPostgres, type PostgresServer } from '../testing/postgres';

interface Status {
  database: string;
  lease: { holder: string; epoch: number; since: string; expires_at: string } | null;
  processes: Array<{ id: string; host: string; pid: number; version: string; started_at: string; last_seen: string; leader: boolean; this_process: boolean }>;
}
const status = async (h: Harness): Promise<Status> => {
  const r = await h.call('GET', '/api/admin/cluster', undefined, h.cp.adminToken);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as Status;
};

describe('on SQLite', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('needs the admin token', async () => {
    expect((await h.call('GET', '/api/admin/cluster')).status).toBe(401);
    const { token } = await h.signup();
    expect((await h.call('GET', '/api/admin/cluster', undefined, token)).status).toBe(401);
  });

  it('lists this one process, holding the lease since its start', async () => {
    const s = await status(h);
    expect(s.database).toBe('sqlite');
    expect(s.processes).toHaveLength(1);
    const [p] = s.processes;
    expect(p).toMatchObject({ pid: process.pid, version: CONTROL_PLANE_VERSION, leader: true, this_process: true });
    expect(s.lease).toMatchObject({ holder: p.id });
    expect(Date.parse(s.lease!.since)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(s.lease!.expires_at)).toBeGreaterThan(Date.now());
  });

  it('after a restart on the same data the new process holds the lease with a higher epoch and the old one is gone', async () => {
    const before = await status(h);
    await h.restart();
    const after = await status(h);
    expect(after.processes.map((p) => p.id)).toEqual([after.lease!.holder]);
    expect(after.lease!.holder).not.toBe(before.lease!.holder);
    expect(after.lease!.epoch).toBeGreaterThan(before.lease!.epoch);
  });
});

const missing = postgresMissing();
describe.skipIf(missing)(`two control planes on one Postgres${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let pg: PostgresServer;
  let a: Harness;
  let b: Harness;
  let stopped: Harness | null = null;
  beforeAll(async () => {
    pg = await startPostgres();
    const env = { DATABASE_URL: await pg.createDatabase(), LEADER_LEASE_SECONDS: '3' };
    a = await startHarness(env);
    b = await startHarness(env);
  }, 120_000);
  afterAll(async () => {
    for (const h of [b, a]) if (h && h !== stopped) await h.close();
    if (stopped) fs.rmSync(stopped.dataDir, { recursive: true, force: true });
    await pg?.stop();
  });

  it('both list both processes and the same single leader; when the leader stops the other takes over with a higher epoch', async () => {
    const fromA = await status(a);
    const fromB = await status(b);
    expect(fromA.database).toBe('postgres');
    expect(fromA.processes).toHaveLength(2);
    expect(fromA.processes.filter((p) => p.leader)).toHaveLength(1);
    expect(fromB.lease?.holder).toBe(fromA.lease?.holder);
    expect(fromA.processes.filter((p) => p.this_process)).toHaveLength(1);
    expect(fromB.processes.find((p) => p.this_process)?.id).not.toBe(fromA.processes.find((p) => p.this_process)?.id);
    const leaderA = fromA.processes.find((p) => p.leader)!.this_process;
    const [leader, other] = leaderA ? [a, b] : [b, a];
    const epoch = fromA.lease!.epoch;

    stopped = leader;
    await leader.cp.close();
    // The other renews every second (a third of 3 s) and finds the released lease.
    await expect.poll(async () => (await status(other)).lease?.holder, { timeout: 20_000, interval: 250 }).toBe((await status(other)).processes.find((p) => p.this_process)!.id);
    const after = await status(other);
    expect(after.lease!.epoch).toBeGreaterThan(epoch);
    expect(after.processes).toHaveLength(1);
  }, 60_000);
});
