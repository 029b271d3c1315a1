// Incidents' threads per alert method (Kysely: the same code on SQLite and Postgres). The first
// thread stored for an incident and method wins; a second (a retried root post) is ignored.
import type { Kysely } from 'kysely';
import type { Schema } from '../store/sql/schema';
import type { ThreadRef } from './types';

export function createThreadsRepo(db: Kysely<Schema>) {
  return {
    get: async (incidentId: number, methodId: number): Promise<ThreadRef | null> => {
      const r = await db.selectFrom('alert_threads').select(['channel', 'ts'])
        .where('incident_id', '=', incidentId).where('alert_method_id', '=', methodId).executeTakeFirst();
      return r ? { channel: r.channel, ts: r.ts } : null;
    },
    save: async (incidentId: number, methodId: number, ref: ThreadRef, now: number): Promise<void> => {
      await db.insertInto('alert_threads').values({ incident_id: incidentId, alert_method_id: methodId, channel: ref.channel, ts: ref.ts, created_at: now })
        .onConflict((oc) => oc.columns(['incident_id', 'alert_method_id']).doNothing()).execute();
    },
  };
}
export type ThreadsRepo = ReturnType<typeof createThreadsRepo>;
