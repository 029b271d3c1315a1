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

/** The leader lease: once-only work runs on its holder; every takeover raises the epoch. */
export interface LeaderLeasesTable {
  name: string;
  holder: string;
  epoch: number;
  acquired_at: number;
  expires_at: number;
}

/** A control-plane process, as it last said it was alive. */
export interface ControlPlaneProcessesTable {
  id: string;
  host: string;
  pid: number;
  version: string;
  started_at: number;
  last_seen: number;
}

/** agents: only the columns Kysely code knows so far (the table is still read by better-sqlite3 in agents-repo.ts). */
export interface AgentsBrowserColumns {
  agent_id: string;
  browser_checks: Generated<number>;
  browser_unavailable: Generated<string>;
}

/** An endpoint's badge token (GET /badge/{token}/…); one per endpoint, replaced when rotated. */
export interface EndpointBadgesTable {
  url_id: number;
  badge_token: string;
  created_at: number;
}

/** An escalation policy; `steps` is JSON: [{ wait_minutes, alert_method_ids }]. */
export interface EscalationPoliciesTable {
  escalation_policy_id: Generated<number>;
  user_id: number;
  name: string;
  steps: string;
  repeat: Generated<number>;
  repeat_every_minutes: Generated<number>;
  created_at: number;
}

/** Where an incident's escalation stands (the worker advances it; better-sqlite3 in alerting/escalation-repo.ts). */
export interface IncidentEscalationsTable {
  incident_id: number;
  escalation_policy_id: number | null;
  steps: string;
  repeat: Generated<number>;
  repeat_every_minutes: Generated<number>;
  next_step: Generated<number>;
  next_repeat: Generated<number>;
  due_at: number | null;
  ack_sent: Generated<number>;
}

/** Only the columns Kysely queries read or write so far (the endpoints repo is still better-sqlite3). */
export interface EndpointsLinksTable {
  url_id: number;
  user_id: number;
  escalation_policy_id: number | null;
  depends_on: number | null;
}

/** Only the columns Kysely queries read (the alert settings repo is still better-sqlite3). */
export interface AlertMethodsKeysTable {
  alert_method_id: number;
  user_id: number;
}

/** An incident's thread at one alert method (Slack: the root message's channel and ts). */
export interface AlertThreadsTable {
  incident_id: number;
  alert_method_id: number;
  channel: string;
  ts: string;
  created_at: number;
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
  suppressed_by: number | null;
  /** The storm group its first message went out in (NULL: alone). */
  group_id: number | null;
  /** 1 once its recovery was told (grouped recoveries). */
  group_recovery_sent: Generated<number>;
}

/** A storm: incidents of a workspace whose first messages went out as one grouped message per method. */
export interface IncidentGroupsTable {
  group_id: Generated<number>;
  user_id: number;
  created_at: number;
}

/** A workspace's alert settings (no row: the defaults). */
export interface AlertSettingsTable {
  user_id: number;
  /** More than this many incidents opening within 60 s are a storm (2–100, default 5). */
  group_threshold: Generated<number>;
  updated_at: number;
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
  leader_leases: LeaderLeasesTable;
  control_plane_processes: ControlPlaneProcessesTable;
  agents: AgentsBrowserColumns;
  endpoint_badges: EndpointBadgesTable;
  escalation_policies: EscalationPoliciesTable;
  incident_escalations: IncidentEscalationsTable;
  endpoints: EndpointsLinksTable;
  alert_methods: AlertMethodsKeysTable;
  alert_threads: AlertThreadsTable;
  incidents: IncidentsTable;
  incident_groups: IncidentGroupsTable;
  alert_settings: AlertSettingsTable;
  report_schedules: ReportSchedulesTable;
  report_runs: ReportRunsTable;
}
