import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AssignmentUpdate } from '@upfleet/proto';
import { openDatabase } from '../store/db';
import { seedDatabase } from '../store/seed';
import { loadedCatalog } from '../testing/catalog';
import { createEndpointsRepo } from '../store/endpoints-repo';
import { createUsersRepo } from '../store/users-repo';
import { sqliteSql } from '../store/sql/open';
import { createHeldChecksRepo } from '../store/held-checks-repo';
import { createAssignmentEngine } from './assignments';
import { checksForEndpoint, ownerOf } from './check-placement';
import { EndpointCreateBody, EndpointToggleBody } from '@upfleet/proto/schemas';
import { createEndpointService } from './endpoints';
import { createChangeHub } from '../change-hub';
import { followChanges } from './assignments';

/** The change hub's endpoint topic, followed by the engine (as server.ts wires it). */
function followedBy(engine: Parameters<typeof followChanges>[0]) {
  const hub = createChangeHub();
  followChanges(engine, hub);
  return hub.endpoints;
}

const base = { url_id: 7, url: 'https://example.com/', regions: ['EU-Germany', 'US-Virginia'], ping_host: false, cert_expiry: false, response_code: false, response_time: false, check_frequency_seconds: 60, retention_days: 90 };

describe('checksForEndpoint', () => {
  it('runs response_code and cert_expiry only from the primary region, response_time and ping from every selected one', () => {
    const ids = checksForEndpoint({ ...base, response_code: true, cert_expiry: true, response_time: true, ping_host: true }, 'EU-Germany').map((a) => a.check_id).sort();
    expect(ids).toEqual(['7:http:EU-Germany', '7:http:US-Virginia', '7:ping:EU-Germany', '7:ping:US-Virginia', '7:tls:EU-Germany']);
  });

  it('uses one HTTP check for response code and time in the same region, at the plan interval', () => {
    const checks = checksForEndpoint({ ...base, regions: ['EU-Germany'], response_code: true, response_time: true }, 'EU-Germany');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ kind: 'CHECK_KIND_HTTP', interval_seconds: 60, retention_days: 90, url: 'https://example.com/' });
  });

  it('skips the certificate check for plain http URLs', () => {
    expect(checksForEndpoint({ ...base, url: 'http://example.com/', cert_expiry: true }, 'EU-Germany')).toEqual([]);
  });

  it('gives a DNS check that names no resolver the operator\'s DNS_RESOLVERS when private targets are denied, and only then', () => {
    const dns = (resolver?: string) => ({ ...base, url: 'dns://example.com/A', regions: ['EU-Germany'], kind: 'dns' as const, check: { target: 'example.com', record_type: 'A' as const, ...(resolver ? { resolver } : {}) } });
    const list = ['1.1.1.1:53', '[2606:4700:4700::1111]:53'];
    expect(checksForEndpoint(dns(), 'EU-Germany', true, list).map((a) => a.default_resolvers)).toEqual([list]);
    expect(checksForEndpoint(dns('9.9.9.9'), 'EU-Germany', true, list)[0]).toMatchObject({ resolver: '9.9.9.9' });
    expect(checksForEndpoint(dns('9.9.9.9'), 'EU-Germany', true, list)[0].default_resolvers).toBeUndefined();
    expect(checksForEndpoint(dns(), 'EU-Germany', false, list)[0].default_resolvers).toBeUndefined();
  });
});

describe('ownerOf (rendezvous hashing)', () => {
  const checks = Array.from({ length: 3000 }, (_, i) => `${i}:http:EU-Germany`);

  it('spreads checks evenly and is stable for the same agent set', () => {
    const agents = ['a1', 'a2', 'a3'];
    const counts = new Map<string, number>();
    for (const c of checks) counts.set(ownerOf(c, agents)!, (counts.get(ownerOf(c, agents)!) ?? 0) + 1);
    for (const n of counts.values()) expect(n).toBeGreaterThan(800);
    expect(checks.map((c) => ownerOf(c, agents))).toEqual(checks.map((c) => ownerOf(c, [...agents].reverse())));
  });

  it('moves only the new agent\'s share when an agent joins, and only the lost agent\'s checks when one leaves', () => {
    const before = checks.map((c) => ownerOf(c, ['a1', 'a2']));
    const after = checks.map((c) => ownerOf(c, ['a1', 'a2', 'a3']));
    const moved = before.filter((o, i) => o !== after[i]);
    expect(after.filter((o, i) => o !== before[i]).every((o) => o === 'a3')).toBe(true);
    expect(moved.length / checks.length).toBeGreaterThan(0.25);
    expect(moved.length / checks.length).toBeLessThan(0.42);
    const lost = checks.map((c) => ownerOf(c, ['a1', 'a3']));
    lost.forEach((o, i) => {
      if (after[i] !== 'a2') expect(o).toBe(after[i]);
    });
  });
});

describe('assignment engine deltas', () => {
  it('recomputes only the changed endpoint on create, update, toggle and delete: no full scan, only its checks in the delta', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const db = openDatabase(path.join(dir, 'upfleet.db'));
    seedDatabase(db);
    try {
      const repo = createEndpointsRepo(db);
      let fullScans = 0;
      const counted = { ...repo, listMonitored: () => (fullScans++, repo.listMonitored()) };
      const catalog = await loadedCatalog(db);
      const userId = await createUsersRepo(sqliteSql(db).db).insert('u1', 'u1@example.com', 'x', 4); // Business: room for 1,000
      const input = (n: number) => ({ name: `e${n}`, url: `https://example.com/${n}`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false });
      for (let i = 0; i < 200; i++) repo.insert(userId, `g${i}`, input(i));
      const engine = createAssignmentEngine({
        endpoints: counted, catalog, logger: pino({ level: 'silent' }), liveAgents: () => new Map([['EU-Germany', new Set(['agent-a'])]]),
        privateTargetsDenied: true,
      });
      const updates: AssignmentUpdate[] = [];
      engine.watch({ agentId: 'agent-a', region: 'EU-Germany', send: (u) => updates.push(u) });
      const tick = () => new Promise((r) => setImmediate(r));
      await tick();
      expect(updates[0].snapshot!.assignments).toHaveLength(200);
      expect(updates[0].snapshot!.assignments.every((a) => a.private_targets_denied)).toBe(true);
      const scansAfterSnapshot = fullScans;
      const services = createEndpointService({ endpoints: repo, users: createUsersRepo(sqliteSql(db).db), catalog, allowPrivateTargets: true, changes: followedBy(engine) });
      const deltas = () => updates.filter((u) => u.delta).map((u) => ({ up: u.delta!.upserts.map((a) => a.check_id), rm: u.delta!.removed_check_ids }));

      updates.length = 0;
      const created = await services.create(userId, EndpointCreateBody.parse({ name: 'new', url: 'https://example.net/' }));
      await tick();
      await services.update(userId, 5, EndpointCreateBody.parse({ name: 'e5', url: 'https://example.com/5-moved' }));
      await tick();
      await services.toggle(userId, 7, EndpointToggleBody.parse({ monitoring_enabled: false }));
      await tick();
      services.remove(userId, 9);
      await tick();
      expect(deltas()).toEqual([
        { up: [`${created.url_id}:http:EU-Germany`], rm: [] },
        { up: ['5:http:EU-Germany'], rm: [] },
        { up: [], rm: ['7:http:EU-Germany'] },
        { up: [], rm: ['9:http:EU-Germany'] },
      ]);
      expect(fullScans).toBe(scansAfterSnapshot);
      expect(engine.ownedCount('agent-a')).toBe(199);
      engine.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('browser checks placement', () => {
  it('gives browser checks only to agents that said they can run them; other kinds to any agent', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const db = openDatabase(path.join(dir, 'upfleet.db'));
    seedDatabase(db);
    try {
      const repo = createEndpointsRepo(db);
      const catalog = await loadedCatalog(db);
      const userId = await createUsersRepo(sqliteSql(db).db).insert('u1', 'u1@example.com', 'x', 4);
      const input = (n: number) => ({ name: `e${n}`, url: `https://example.com/${n}`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false });
      for (let i = 0; i < 40; i++) repo.insert(userId, `b${i}`, input(i), { kind: 'browser', steps: [{ action: 'click', selector: '#go' }], timeout_seconds: 20 });
      for (let i = 40; i < 80; i++) repo.insert(userId, `h${i}`, input(i));
      const agents = ['agent-a', 'agent-b', 'agent-c'];
      const engine = createAssignmentEngine({ endpoints: repo, catalog, logger: pino({ level: 'silent' }), liveAgents: () => new Map([['EU-Germany', new Set(agents)]]) });
      const held = new Map<string, string[]>();
      engine.watch({ agentId: 'agent-a', region: 'EU-Germany', browserChecks: true, send: (u) => { if (u.snapshot) held.set('agent-a', u.snapshot.assignments.map((a) => a.check_id)); } });
      engine.watch({ agentId: 'agent-b', region: 'EU-Germany', browserChecks: false, send: (u) => { if (u.snapshot) held.set('agent-b', u.snapshot.assignments.map((a) => a.check_id)); } });
      engine.watch({ agentId: 'agent-c', region: 'EU-Germany', send: (u) => { if (u.snapshot) held.set('agent-c', u.snapshot.assignments.map((a) => a.check_id)); } });
      await new Promise((r) => setImmediate(r));
      engine.close();
      const all = [...held.values()].flat();
      expect(all.filter((c) => c.includes(':browser:'))).toHaveLength(40);
      expect(held.get('agent-a')!.filter((c) => c.includes(':browser:'))).toHaveLength(40);
      expect(held.get('agent-b')!.some((c) => c.includes(':browser:'))).toBe(false);
      expect(held.get('agent-c')!.some((c) => c.includes(':browser:'))).toBe(false);
      expect(held.get('agent-b')!.length + held.get('agent-c')!.length).toBeGreaterThan(10);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('results of checks an agent no longer holds', () => {
  it('still counts results dated while the agent held the check, however late they arrive; not those dated after, nor a buffer older than the memory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const db = openDatabase(path.join(dir, 'upfleet.db'));
    seedDatabase(db);
    try {
      const repo = createEndpointsRepo(db);
      const catalog = await loadedCatalog(db);
      const users = createUsersRepo(sqliteSql(db).db);
      const userId = await users.insert('u2', 'u2@example.com', 'x', 4);
      let t = Date.UTC(2026, 10, 23, 12);
      const engine = createAssignmentEngine({
        endpoints: repo, catalog, logger: pino({ level: 'silent' }), liveAgents: () => new Map([['EU-Germany', new Set(['agent-a'])]]),
        releaseGraceMs: 12_000, releaseMemoryMs: 6 * 3_600_000, now: () => t,
      });
      engine.watch({ agentId: 'agent-a', region: 'EU-Germany', send: () => undefined });
      const services = createEndpointService({ endpoints: repo, users, catalog, allowPrivateTargets: true, changes: followedBy(engine) });
      const e = await services.create(userId, EndpointCreateBody.parse({ name: 'late', url: 'https://example.com/late', regions: ['EU-Germany'], response_code: true }));
      const tick = () => new Promise((r) => setImmediate(r));
      await tick();
      const checkId = `${e.url_id}:http:EU-Germany`;
      const madeWhileHeld = t - 5_000;
      expect(engine.assignedTo('agent-a', 'EU-Germany', checkId, 0, madeWhileHeld)?.endpoint_id).toBe(e.url_id);

      // switched off; the agent was cut off meanwhile and delivers its buffer an hour later
      await services.toggle(userId, e.url_id, EndpointToggleBody.parse({ monitoring_enabled: false }));
      await tick();
      const releasedAt = t;
      t += 3_600_000;
      expect(engine.assignedTo('agent-a', 'EU-Germany', checkId, 0, madeWhileHeld)).toMatchObject({ endpoint_id: e.url_id, kind: 'CHECK_KIND_HTTP', retention_days: 365 }); // the Business plan's retention
      expect(engine.assignedTo('agent-a', 'EU-Germany', checkId, 0, releasedAt + 10_000)?.endpoint_id).toBe(e.url_id); // in flight at the handover
      expect(engine.assignedTo('agent-a', 'EU-Germany', checkId, 0, releasedAt + 60_000)).toBeNull(); // made after it lost the check
      expect(engine.assignedTo('agent-b', 'EU-Germany', checkId, 0, madeWhileHeld)).toBeNull(); // never held it

      // past the memory, the next handover prunes it: refused
      t += 6 * 3_600_000;
      await services.create(userId, EndpointCreateBody.parse({ name: 'other', url: 'https://example.com/other', regions: ['EU-Germany'], response_code: true }));
      await tick();
      expect(engine.assignedTo('agent-a', 'EU-Germany', checkId, 0, madeWhileHeld)).toBeNull();
      engine.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('results buffered across a control-plane restart', () => {
  it('counts an agent\'s backlog only for the checks it held before the restart (persisted); an agent that never watched gets nothing, then or later', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const file = path.join(dir, 'upfleet.db');
    let db = openDatabase(file);
    seedDatabase(db);
    try {
      let t = Date.UTC(2026, 10, 23, 12);
      const live = () => new Map([['EU-Germany', new Set(['agent-a', 'agent-x'])]]);
      const make = async (d: typeof db) => createAssignmentEngine({
        endpoints: createEndpointsRepo(d), catalog: (await loadedCatalog(d)), logger: pino({ level: 'silent' }), liveAgents: live,
        releaseGraceMs: 12_000, held: createHeldChecksRepo(d), now: () => t,
      });
      const users = createUsersRepo(sqliteSql(db).db);
      const owner = await users.insert('u3', 'u3@example.com', 'x', 4);
      const victim = await users.insert('u4', 'u4@example.com', 'x', 4);
      const services = createEndpointService({ endpoints: createEndpointsRepo(db), users, catalog: (await loadedCatalog(db)), allowPrivateTargets: true });
      const input = (url: string) => EndpointCreateBody.parse({ name: 'e', url, regions: ['EU-Germany'], response_code: true });
      const mine = await services.create(owner, input('https://example.com/mine'));
      const before = await make(db);
      const stop = before.watch({ agentId: 'agent-a', region: 'EU-Germany', send: () => undefined });
      await new Promise((r) => setImmediate(r));
      expect(before.ownedCount('agent-a')).toBe(1);
      stop(); // the agent keeps checking on its saved snapshot; agent-x never watches
      const other = await services.create(victim, input('https://example.com/victim'));
      before.close();
      db.close();

      t += 3_600_000;
      db = openDatabase(file);
      const after = await make(db);
      const registered = t - 2 * 86_400_000;
      const mineCheck = `${mine.url_id}:http:EU-Germany`;
      const otherCheck = `${other.url_id}:http:EU-Germany`;
      expect(after.assignedTo('agent-a', 'EU-Germany', mineCheck, registered, t - 30 * 60_000)?.endpoint_id).toBe(mine.url_id);
      expect(after.assignedTo('agent-a', 'EU-Germany', otherCheck, registered, t - 30 * 60_000)).toBeNull(); // its region's, never its
      for (const dated of [t - 36 * 3_600_000, t - 60_000]) {
        expect(after.assignedTo('agent-x', 'EU-Germany', mineCheck, registered, dated)).toBeNull();
        expect(after.assignedTo('agent-x', 'EU-Germany', otherCheck, registered, dated)).toBeNull();
      }
      t += 100_000;
      expect(after.assignedTo('agent-x', 'EU-Germany', otherCheck, registered, t - 36 * 3_600_000)).toBeNull();
      // its backlog still counts once the endpoint was switched off (the results were made while it was on)
      const servicesAfter = createEndpointService({ endpoints: createEndpointsRepo(db), users: createUsersRepo(sqliteSql(db).db), catalog: (await loadedCatalog(db)), allowPrivateTargets: true });
      await servicesAfter.toggle(owner, mine.url_id, { monitoring_enabled: false });
      t += 2_000;
      expect(after.assignedTo('agent-a', 'EU-Germany', mineCheck, registered, t - 30 * 60_000)?.endpoint_id).toBe(mine.url_id);
      // a revoked agent's persisted checks are forgotten
      after.forget('agent-a');
      expect(after.assignedTo('agent-a', 'EU-Germany', mineCheck, registered, t - 30 * 60_000)).toBeNull();
      after.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('held checks across a restart, by the agent\'s own account', () => {
  it('keeps an agent\'s checks when another agent is given them while it is away and not told: its backlog counts after a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const file = path.join(dir, 'upfleet.db');
    let db = openDatabase(file);
    seedDatabase(db);
    try {
      let t = Date.UTC(2026, 10, 23, 12);
      let liveNow = new Set(['agent-b']);
      const make = async (d: typeof db) => createAssignmentEngine({
        endpoints: createEndpointsRepo(d), catalog: (await loadedCatalog(d)), logger: pino({ level: 'silent' }),
        liveAgents: () => new Map([['EU-Germany', liveNow]]), releaseGraceMs: 12_000, held: createHeldChecksRepo(d), now: () => t,
      });
      const users = createUsersRepo(sqliteSql(db).db);
      const owner = await users.insert('u5', 'u5@example.com', 'x', 4);
      const services = createEndpointService({ endpoints: createEndpointsRepo(db), users, catalog: (await loadedCatalog(db)), allowPrivateTargets: true });
      const e = await services.create(owner, EndpointCreateBody.parse({ name: 'e', url: 'https://example.com/b', regions: ['EU-Germany'], response_code: true }));
      const before = await make(db);
      const stopB = before.watch({ agentId: 'agent-b', region: 'EU-Germany', send: () => undefined });
      await new Promise((r) => setImmediate(r));
      expect(before.ownedCount('agent-b')).toBe(1);
      stopB(); // agent-b goes away and keeps checking on its saved snapshot
      liveNow = new Set(['agent-a']);
      before.watch({ agentId: 'agent-a', region: 'EU-Germany', send: () => undefined });
      await new Promise((r) => setImmediate(r));
      expect(before.ownedCount('agent-a')).toBe(1); // agent-a now has it too; agent-b was never told
      before.close();
      db.close();

      t += 60_000;
      db = openDatabase(file);
      const after = await make(db);
      const check = `${e.url_id}:http:EU-Germany`;
      const registered = t - 86_400_000;
      expect(after.assignedTo('agent-b', 'EU-Germany', check, registered, t - 30_000)?.endpoint_id).toBe(e.url_id);
      expect(after.assignedTo('agent-a', 'EU-Germany', check, registered, t - 30_000)?.endpoint_id).toBe(e.url_id);
      expect(after.assignedTo('agent-x', 'EU-Germany', check, registered, t - 30_000)).toBeNull();
      after.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a backlog after a restart', () => {
  it('reads the endpoints of a batch\'s late results in one query, and answers each result as one at a time would', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const file = path.join(dir, 'upfleet.db');
    let db = openDatabase(file);
    seedDatabase(db);
    try {
      const t = Date.UTC(2026, 10, 23, 12);
      const live = () => new Map([['EU-Germany', new Set(['agent-a'])]]);
      const reads = { one: 0, many: 0 };
      const make = async (d: typeof db) => {
        const repo = createEndpointsRepo(d);
        const counted = {
          ...repo,
          withPausedById: (id: number) => (reads.one++, repo.withPausedById(id)),
          withPausedByIds: (ids: readonly number[]) => (reads.many++, repo.withPausedByIds(ids)),
        };
        return createAssignmentEngine({ endpoints: counted, catalog: await loadedCatalog(d), logger: pino({ level: 'silent' }), liveAgents: live, held: createHeldChecksRepo(d), now: () => t });
      };
      const users = createUsersRepo(sqliteSql(db).db);
      const owner = await users.insert('u7', 'u7@example.com', 'x', 4);
      const services = createEndpointService({ endpoints: createEndpointsRepo(db), users, catalog: await loadedCatalog(db), allowPrivateTargets: true });
      const held = await Promise.all([1, 2, 3].map((n) => services.create(owner, EndpointCreateBody.parse({ name: `e${n}`, url: `https://example.com/late${n}`, regions: ['EU-Germany'], response_code: true }))));
      const before = await make(db);
      before.watch({ agentId: 'agent-a', region: 'EU-Germany', send: () => undefined });
      await new Promise((r) => setImmediate(r));
      expect(before.ownedCount('agent-a')).toBe(3);
      before.close();
      const notHeld = await services.create(owner, EndpointCreateBody.parse({ name: 'later', url: 'https://example.com/later', regions: ['EU-Germany'], response_code: true }));
      db.close();

      db = openDatabase(file);
      const after = await make(db);
      const checks = [...held, notHeld].map((e) => `${e.url_id}:http:EU-Germany`);
      const registered = t - 86_400_000;
      after.prepareBatch('agent-a', registered, checks);
      const answers = checks.map((c) => after.assignedTo('agent-a', 'EU-Germany', c, registered, t - 10_000)?.endpoint_id ?? null);
      expect(answers).toEqual([...held.map((e) => e.url_id), null]);
      expect(reads).toEqual({ one: 0, many: 1 });
      after.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('snapshots pending', () => {
  it('says so from a watch until its snapshot is sent, through the start-up grace (the backlogs wait meanwhile)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const db = openDatabase(path.join(dir, 'upfleet.db'));
    seedDatabase(db);
    try {
      const engine = createAssignmentEngine({
        endpoints: createEndpointsRepo(db), catalog: await loadedCatalog(db), logger: pino({ level: 'silent' }),
        liveAgents: () => new Map([['EU-Germany', new Set(['agent-a'])]]), startupGraceMs: 200,
      });
      expect(engine.snapshotsPending()).toBe(false);
      const got: AssignmentUpdate[] = [];
      engine.watch({ agentId: 'agent-a', region: 'EU-Germany', send: (u) => got.push(u) });
      expect(engine.snapshotsPending()).toBe(true);
      while (got.length === 0) await new Promise((r) => setTimeout(r, 20));
      expect(got[0].snapshot).toBeDefined();
      expect(engine.snapshotsPending()).toBe(false);
      engine.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an agent connecting', () => {
  it('places only its region\'s checks, in one pass: the other regions\' watchers are not recomputed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-engine-'));
    const db = openDatabase(path.join(dir, 'upfleet.db'));
    seedDatabase(db);
    try {
      const repo = createEndpointsRepo(db);
      let scans = 0;
      const counted = { ...repo, listMonitored: () => (scans++, repo.listMonitored()) };
      const userId = await createUsersRepo(sqliteSql(db).db).insert('u5', 'u5@example.com', 'x', 4);
      // response_time only: one check per selected region (no primary-region-only checks)
      const input = (n: number, regions: string[]) => ({ name: `e${n}`, url: `https://example.com/r${n}`, description: '', regions, ping_host: false, cert_expiry: false, response_code: false, response_time: true });
      for (let i = 0; i < 300; i++) repo.insert(userId, `r${i}`, input(i, ['EU-Germany']));
      for (let i = 300; i < 310; i++) repo.insert(userId, `r${i}`, input(i, ['US-Virginia']));
      const live = new Map([['EU-Germany', new Set(['eu-1', 'eu-2'])], ['US-Virginia', new Set(['us-1', 'us-2'])]]);
      const engine = createAssignmentEngine({ endpoints: counted, catalog: (await loadedCatalog(db)), logger: pino({ level: 'silent' }), liveAgents: () => live });
      const tick = () => new Promise((r) => setImmediate(r));
      const got = new Map<string, AssignmentUpdate[]>();
      const watch = (agentId: string, region: string) => {
        got.set(agentId, []);
        return engine.watch({ agentId, region, send: (u) => got.get(agentId)!.push(u) });
      };
      watch('eu-1', 'EU-Germany');
      watch('eu-2', 'EU-Germany');
      watch('us-1', 'US-Virginia');
      await tick();
      expect(engine.ownedCount('eu-1') + engine.ownedCount('eu-2')).toBe(300);

      const [placedBefore, scansBefore, euUpdates] = [engine.placedChecks(), scans, got.get('eu-1')!.length + got.get('eu-2')!.length];
      watch('us-2', 'US-Virginia');
      await tick();
      await tick();
      expect(engine.placedChecks() - placedBefore).toBe(10); // the US checks, once
      expect(scans - scansBefore).toBe(1);
      expect(got.get('eu-1')!.length + got.get('eu-2')!.length).toBe(euUpdates);
      // the US checks are split between both US agents, the new one got a snapshot, the other a delta
      expect(engine.ownedCount('us-1') + engine.ownedCount('us-2')).toBe(10);
      expect(engine.ownedCount('us-2')).toBeGreaterThan(0);
      expect(got.get('us-2')![0].snapshot!.assignments).toHaveLength(engine.ownedCount('us-2'));
      expect(got.get('us-1')!.at(-1)!.delta!.removed_check_ids).toHaveLength(engine.ownedCount('us-2'));
      engine.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
