// An incident's recorded events (incident_events): escalation writes its steps there, handling its
// acknowledgements; the timeline reads them all. Kysely, so it runs on SQLite and Postgres.
import type { Kysely } from 'kysely';
import type { Schema } from '../store/sql/schema';

export interface IncidentEventRow {
  event_id: number;
  incident_id: number;
  at: number;
  type: string;
  step: number | null;
  alert_method_id: number | null;
  detail: string;
}

export function createTimelineRepo(db: Kysely<Schema>) {
  return {
    add: async (e: Omit<IncidentEventRow, 'event_id'>): Promise<void> => {
      await db.insertInto('incident_events').values(e).execute();
    },
    of: (incidentId: number): Promise<IncidentEventRow[]> =>
      db.selectFrom('incident_events').selectAll().where('incident_id', '=', incidentId).orderBy('at').orderBy('event_id').execute(),
  };
}
export type TimelineRepo = ReturnType<typeof createTimelineRepo>;
