import type { Generated } from 'kysely';

// The tables Kysely queries, typed by hand from the migrations (the same on SQLite and Postgres:
// integers are numbers on both, booleans are 0/1). A repo converted to Kysely adds its tables here.
export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SchemaMigrationsTable {
  id: number;
  name: string;
  applied_at: string;
}

/** What happened to an incident beyond its own times and deliveries (escalations, reminders, skips). */
export interface IncidentEventsTable {
  event_id: Generated<number>;
  incident_id: number;
  at: number;
  type: string;
  step: number | null;
  alert_method_id: number | null;
  detail: Generated<string>;
}

/** Alerting's incidents (better-sqlite3 writes them; reports read them here). */
export interface IncidentsTable {
  incident_id: Generated<number>;
  user_id: number;
  url_id: number;
  condition: string;
  /** JSON list of region labels ('EU - Germany'). */
  regions: string;
  cause: string;
  flapping: number;
  opened_at: number;
  resolved_at: number | null;
  resolved_silently: number;
  acknowledged_at: number | null;
  acknowledged_by: number | null;
}

/** A workspace's monthly SLA report by mail (recipients: a JSON list of mailboxes). */
export interface ReportSchedulesTable {
  workspace_id: number;
  enabled: number;
  recipients: string;
  /** When it was last switched on: the first report is for the first whole month after. */
  enabled_at: number | null;
  updated_at: number;
}

/** The months a workspace's report was queued for ('2026-11'), once each. */
export interface ReportRunsTable {
  workspace_id: number;
  month: string;
  sent_at: number;
}

export interface Schema {
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  schema_migrations: SchemaMigrationsTable;
  incident_events: IncidentEventsTable;
  incidents: IncidentsTable;
  report_schedules: ReportSchedulesTable;
  report_runs: ReportRunsTable;
}
