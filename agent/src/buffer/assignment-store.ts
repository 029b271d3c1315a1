// The last assignment snapshot plus the deltas since, so a restarted agent checks on while the
// control plane is away: the `assignments` table and `assignments_version` in kv.
import type { Assignment } from '@upfleet/proto';
import { kvAccess, type AgentDb } from './agent-db';

export interface AssignmentStore {
  load(this: void): { version: number; assignments: Assignment[] };
  saveSnapshot(this: void, version: number, assignments: Assignment[]): void;
  applyDelta(this: void, version: number, upserts: Assignment[], removedCheckIds: string[]): void;
}

export function createAssignmentStore(db: AgentDb): AssignmentStore {
  db.exec('CREATE TABLE IF NOT EXISTS assignments (check_id TEXT PRIMARY KEY, payload TEXT NOT NULL);');
  const kv = kvAccess(db);
  const q = {
    all: db.prepare('SELECT payload FROM assignments'),
    put: db.prepare('INSERT INTO assignments (check_id, payload) VALUES (?, ?) ON CONFLICT(check_id) DO UPDATE SET payload = excluded.payload'),
    del: db.prepare('DELETE FROM assignments WHERE check_id = ?'),
    clear: db.prepare('DELETE FROM assignments'),
  };
  const saveSnapshot = db.transaction((version: number, list: Assignment[]) => {
    q.clear.run();
    for (const a of list) q.put.run(a.check_id, JSON.stringify(a));
    kv.set('assignments_version', String(version));
  });
  const applyDelta = db.transaction((version: number, upserts: Assignment[], removed: string[]) => {
    for (const a of upserts) q.put.run(a.check_id, JSON.stringify(a));
    for (const id of removed) q.del.run(id);
    kv.set('assignments_version', String(version));
  });
  return {
    load() {
      const rows = q.all.all() as { payload: string }[];
      return {
        version: Number(kv.get('assignments_version') ?? 0),
        assignments: rows.map((r) => JSON.parse(r.payload) as Assignment),
      };
    },
    saveSnapshot: (version, list) => saveSnapshot(version, list),
    applyDelta: (version, upserts, removed) => applyDelta(version, upserts, removed),
  };
}
