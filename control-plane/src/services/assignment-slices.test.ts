// The engine's placement pass over more endpoints than one slice: it reads them a page at a time
// and gives the event loop back between pages, and every check still lands on exactly one agent.
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
import { createHeldChecksRepo } from '../store/held-checks-repo';
import { createUsersRepo } from '../store/users-repo';
import { sqliteSql } from '../store/sql/open';
import { createAssignmentEngine, PLACEMENT_SLICE } from './assignments';

describe('a placement pass larger than one slice', () => {
  it('yields to the event loop between pages and still places every check on exactly one agent, persisted once', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-slices-'));
    const db = openDatabase(path.join(dir, 'upfleet.db'));
    seedDatabase(db);
    try {
      const repo = createEndpointsRepo(db);
      const userId = await createUsersRepo(sqliteSql(db).db).insert('s1', 's1@example.com', 'x', 4);
      const N = Math.round(PLACEMENT_SLICE * 2.5);
      db.prepare("UPDATE packages SET max_endpoints = ? WHERE package_name = 'Business'").run(N);
      const input = (n: number) => ({ name: `e${n}`, url: `https://example.com/s${n}`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: false, response_time: true });
      db.transaction(() => {
        for (let i = 0; i < N; i++) repo.insert(userId, `s${i}`, input(i));
      })();
      const held = createHeldChecksRepo(db);
      const engine = createAssignmentEngine({
        endpoints: repo, catalog: (await loadedCatalog(db)), logger: pino({ level: 'silent' }),
        liveAgents: () => new Map([['EU-Germany', new Set(['a1', 'a2'])]]), held,
      });
      const got = new Map<string, AssignmentUpdate[]>([['a1', []], ['a2', []]]);
      for (const id of ['a1', 'a2']) engine.watch({ agentId: id, region: 'EU-Germany', send: (u) => got.get(id)!.push(u) });

      // another task on the same loop keeps taking turns while the pass runs
      let turns = 0;
      await new Promise<void>((resolve) => {
        const turn = () => {
          if (got.get('a1')!.length > 0 && got.get('a2')!.length > 0) return resolve();
          turns++;
          setImmediate(turn);
        };
        turn();
      });
      expect(turns).toBeGreaterThanOrEqual(Math.ceil(N / PLACEMENT_SLICE));

      const ids = ['a1', 'a2'].flatMap((id) => got.get(id)![0].snapshot!.assignments.map((a) => a.check_id));
      expect(ids).toHaveLength(N);
      expect(new Set(ids).size).toBe(N);
      expect(engine.ownedCount('a1') + engine.ownedCount('a2')).toBe(N);
      expect(engine.ownedCount('a1')).toBeGreaterThan(0);
      expect(engine.ownedCount('a2')).toBeGreaterThan(0);
      expect(db.prepare('SELECT COUNT(*) FROM agent_held_checks').pluck().get()).toBe(N);
      engine.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a lease that comes or goes without a watcher', () => {
  it('places nothing again: only a change in the agents that watch moves checks', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-slices-'));
    const db = openDatabase(path.join(dir, 'upfleet.db'));
    seedDatabase(db);
    try {
      const repo = createEndpointsRepo(db);
      const userId = await createUsersRepo(sqliteSql(db).db).insert('s2', 's2@example.com', 'x', 4);
      for (let i = 0; i < 50; i++) repo.insert(userId, `t${i}`, { name: `e${i}`, url: `https://example.com/t${i}`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: false, response_time: true });
      const live = new Set(['a1']);
      const engine = createAssignmentEngine({ endpoints: repo, catalog: (await loadedCatalog(db)), logger: pino({ level: 'silent' }), liveAgents: () => new Map([['EU-Germany', live]]) });
      const tick = () => new Promise((r) => setImmediate(r));
      engine.watch({ agentId: 'a1', region: 'EU-Germany', send: () => undefined });
      await tick();
      engine.tick();
      await tick();
      const placed = engine.placedChecks();
      expect(engine.ownedCount('a1')).toBe(50);

      live.add('a2'); // a lease without a watch stream: owns nothing, moves nothing
      engine.tick();
      await tick();
      await tick();
      expect(engine.placedChecks()).toBe(placed);

      engine.watch({ agentId: 'a2', region: 'EU-Germany', send: () => undefined }); // now it watches: the region is placed again
      await tick();
      await tick();
      expect(engine.placedChecks()).toBe(placed + 50);
      expect(engine.ownedCount('a1') + engine.ownedCount('a2')).toBe(50);
      expect(engine.ownedCount('a2')).toBeGreaterThan(0);
      engine.close();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
