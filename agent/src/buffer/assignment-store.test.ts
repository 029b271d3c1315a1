import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { openAgentDb, type AgentDb } from './agent-db';
import { createAssignmentStore } from './assignment-store';
import { createIdentityStore } from './identity-store';
import { createOutbox } from './sqlite-outbox';

const dirs: string[] = [];
const dbs: AgentDb[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'upfleet-agent-db-'));
  dirs.push(d);
  return d;
}
function openAt(dataDir: string) {
  const db = openAgentDb({ dataDir });
  dbs.push(db);
  const identity = createIdentityStore(db);
  const assignments = createAssignmentStore(db);
  return {
    getIdentity: identity.get, saveIdentity: identity.save, loadAssignments: assignments.load,
    saveSnapshot: assignments.saveSnapshot, applyDelta: assignments.applyDelta, close: () => db.close(),
  };
}
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const a = (id: string, url = 'http://127.0.0.1/'): Assignment => ({
  check_id: id, endpoint_id: 1, kind: 'CHECK_KIND_HTTP', url, interval_seconds: 60, timeout_ms: 5000,
  region: 'EU-Germany', retention_days: 30,
});

describe('identity and assignment stores', () => {
  it('stores the identity and the assignment snapshot with deltas across a reopen', () => {
    const dir = tempDir();
    const o = openAt(dir);
    expect(o.getIdentity()).toBeUndefined();
    o.saveIdentity({ agent_id: 'ag1', agent_secret: 's', region: 'EU-Germany', lease_seconds: 30, heartbeat_interval_seconds: 10 });
    o.saveSnapshot(3, [a('x'), a('y')]);
    o.applyDelta(4, [a('y', 'http://127.0.0.1/y2'), a('z')], ['x']);
    o.close();
    const r = openAt(dir);
    expect(r.getIdentity()?.agent_id).toBe('ag1');
    const snap = r.loadAssignments();
    expect(snap.version).toBe(4);
    expect(snap.assignments.map((x) => x.check_id).sort()).toEqual(['y', 'z']);
    expect(snap.assignments.find((x) => x.check_id === 'y')?.url).toBe('http://127.0.0.1/y2');
  });

  it('reads an agent.db written by the single-store agent: identity, snapshot, dropped count and rows', () => {
    const dir = tempDir();
    // the tables and keys exactly as the agent before the split wrote them
    const old = new Database(path.join(dir, 'agent.db'));
    old.exec(`
      CREATE TABLE results (seq INTEGER PRIMARY KEY AUTOINCREMENT, result_id TEXT NOT NULL, payload TEXT NOT NULL);
      CREATE TABLE batches (batch_id TEXT PRIMARY KEY, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL);
      CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE assignments (check_id TEXT PRIMARY KEY, payload TEXT NOT NULL);
    `);
    const ins = old.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
    ins.run('identity', JSON.stringify({ agent_id: 'ag-old', agent_secret: 'sec', region: 'EU-Germany', lease_seconds: 30, heartbeat_interval_seconds: 10 }));
    ins.run('assignments_version', '9');
    ins.run('dropped', '4');
    old.prepare('INSERT INTO assignments (check_id, payload) VALUES (?, ?)').run('x', JSON.stringify(a('x')));
    old.prepare('INSERT INTO results (result_id, payload) VALUES (?, ?)').run('r1', JSON.stringify({ result_id: 'r1' }));
    old.close();

    const db = openAgentDb({ dataDir: dir });
    dbs.push(db);
    expect(createIdentityStore(db).get()).toMatchObject({ agent_id: 'ag-old', agent_secret: 'sec' });
    expect(createAssignmentStore(db).load()).toEqual({ version: 9, assignments: [a('x')] });
    const outbox = createOutbox(db, { cap: 100 });
    expect(outbox.dropped()).toBe(4);
    expect(outbox.takeBatch(10)?.results.map((r) => r.result_id)).toEqual(['r1']);
  });
});
