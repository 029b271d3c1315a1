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

/** A registered agent: its credential (a hash), region, lease and what its last heartbeat said. */
export interface AgentsTable {
  agent_id: string;
  secret_hash: string;
  region: string;
  hostname: Generated<string>;
  version: Generated<string>;
  token_id: string | null;
  created_at: number;
  last_heartbeat_at: number | null;
  lease_expires_at: number | null;
  checks_owned: Generated<number>;
  checks_per_minute: Generated<number>;
  outbox_depth: Generated<number>;
  scheduling_lag_ms_p99: Generated<number>;
  revoked_at: number | null;
  /** 1 when its last heartbeat said it can run browser checks */
  browser_checks: Generated<number>;
  /** why it cannot, from its last heartbeat */
  browser_unavailable: Generated<string>;
}

/** A bootstrap token agents register with (only its hash is stored). */
export interface AgentTokensTable {
  token_id: string;
  token_hash: string;
  region: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  used_count: Generated<number>;
  /** registrations allowed; null: any number */
  max_uses: number | null;
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

/** A workspace: its id is its account's `users.id` (kind 'workspace'), or its person's for a personal one. */
export interface WorkspacesTable {
  id: number;
  name: string;
  personal: Generated<number>;
  created_at: Generated<string>;
}

/** A person's account, or a workspace's account row (kind 'workspace'; its data's user_id). Booleans are 0/1. */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  email: string;
  password_hash: string;
  package_id: number;
  timezone: Generated<string>;
  totp_secret_enc: string | null;
  totp_pending_secret_enc: string | null;
  two_factor_enabled: Generated<number>;
  /** The TOTP time step of the last code accepted; a code is good only for a later step. */
  totp_last_step: number | null;
  /** 1 once the address is confirmed by a link (accounts made before verification existed count as confirmed). */
  email_verified: Generated<number>;
  kind: Generated<'person' | 'workspace'>;
  created_at: Generated<string>;
}

/** Two-factor backup codes (a hash each); `pending` until the setup is confirmed. */
export interface BackupCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  pending: Generated<number>;
  used_at: string | null;
}

/** A link that confirms an address (the account's own, or a new one it moves to). */
export interface EmailVerificationsTable {
  token_hash: string;
  user_id: number;
  email: string;
  expires_at: number;
  used_at: number | null;
  session_id: string | null;
}

/** An API key (only its SHA-256 is stored); `user_id` is its workspace, `created_by` the member. */
export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: Generated<string>;
  last_used_at: string | null;
  created_by: number | null;
}

/** One counted attempt against a rate limit. */
export interface RateLimitEventsTable {
  id: Generated<number>;
  bucket: string;
  key: string;
  ts: number;
}

export interface BillingCustomersTable {
  stripe_customer_id: string;
  user_id: number;
  created_at: number;
  claimed_at_login: Generated<number>;
}

export interface BillingSubscriptionsTable {
  stripe_subscription_id: string;
  user_id: number;
  stripe_customer_id: string;
  stripe_price_id: string;
  status: string;
  current_period_start: number | null;
  current_period_end: number | null;
  created: number;
  past_due_since: number | null;
  updated_at: number;
}

export interface BillingEventsTable {
  event_id: string;
  type: string;
  received_at: number;
}

export interface BillingCheckoutClaimsTable {
  checkout_session_id: string;
  user_id: number;
  claimed_at: number;
}

export interface PlanChangesTable {
  id: Generated<number>;
  user_id: number;
  from_package: string;
  to_package: string;
  reason: string;
  message: string;
  details: string;
  created_at: number;
  dismissed_at: number | null;
}

/** A person's sign-in through an identity provider (OIDC issuer and subject). */
export interface UserIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: number;
  created_at: number;
}

/** Who joined a workspace through its single sign-on (once each). */
export interface SsoWorkspaceJoinsTable {
  workspace_id: number;
  user_id: number;
  at: number;
}

export interface WorkspaceMembersTable {
  workspace_id: number;
  user_id: number;
  role: 'owner' | 'admin' | 'editor' | 'viewer';
  created_at: Generated<string>;
}

/** A one-use invitation link (only its hash is stored). */
export interface WorkspaceInvitationsTable {
  id: Generated<number>;
  workspace_id: number;
  email: string;
  role: 'owner' | 'admin' | 'editor' | 'viewer';
  token_hash: string;
  invited_by: number | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: number | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  workspace_id: number;
  at: number;
  member_id: number | null;
  member_name: Generated<string>;
  action: string;
  target_id: string | null;
  summary: Generated<string>;
  client_address: Generated<string>;
}

/** A browser check's stored screenshot (its bytes in the screenshot blob store, screenshots/). */
export interface ScreenshotsTable {
  id: string;
  workspace_id: number;
  endpoint_id: number;
  result_id: string;
  name: string;
  step: number;
  mime: string;
  bytes: number;
  taken_at: number;
  expires_at: number;
}

/** The plans every account chooses from (booleans are 0/1 on both databases). */
export interface PackagesTable {
  package_id: Generated<number>;
  package_name: string;
  price: number;
  currency: Generated<string>;
  description: Generated<string>;
  max_endpoints: number;
  max_regions: number;
  check_frequency_seconds: number;
  retention_days: number;
  ssl_monitoring: number;
  advanced_alerts: number;
  api_access: number;
  multi_region: number;
  ping_host: number;
  cert_expiry: number;
  response_code: number;
  response_time: number;
  stripe_price_id: Generated<string>;
  sort_order: Generated<number>;
  max_status_pages: Generated<number>;
  /** JSON list of check kinds; NULL: every kind. */
  monitor_kinds: string | null;
  max_members: Generated<number>;
  custom_domains: Generated<number>;
}

export interface RegionsTable {
  region_id: Generated<number>;
  region: string;
  city: string;
  primary_region: Generated<number>;
}

export interface MonitorTypesTable {
  monitor_type_id: Generated<number>;
  type_code: string;
  display_name: string;
  requires_primary_region: number;
}

export interface StatusPagesTable {
  page_id: Generated<number>;
  user_id: number;
  slug: string;
  title: string;
  description: Generated<string>;
  published: Generated<number>;
  password_hash: string | null;
  /** The verified name the page serves (UNIQUE); null until the claim is proved. */
  custom_domain: string | null;
  custom_domain_claim: string | null;
  /** Nullable in the DDL, but every page has one: the repo writes it with the page. */
  custom_domain_token: string;
  custom_domain_checked_at: number | null;
  timezone: Generated<string>;
  auto_reports: Generated<number>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface StatusComponentsTable {
  component_id: Generated<number>;
  page_id: number;
  position: number;
  name: string;
  url_id: number | null;
  group_name: string | null;
}

export interface StatusReportsTable {
  report_id: Generated<number>;
  page_id: number;
  title: string;
  status: string;
  incident_id: number | null;
  created_at: number;
  resolved_at: number | null;
}

export interface StatusReportComponentsTable {
  report_id: number;
  component_id: number;
  impact: string;
}

export interface StatusReportUpdatesTable {
  update_id: Generated<number>;
  report_id: number;
  status: string;
  message: string;
  created_at: number;
}

export interface MaintenanceWindowsTable {
  window_id: Generated<number>;
  user_id: number;
  title: string;
  message: Generated<string>;
  starts_at: number;
  ends_at: number;
  created_at: number;
}

export interface MaintenanceEndpointsTable {
  window_id: number;
  url_id: number;
}

export interface StatusSubscribersTable {
  subscriber_id: Generated<number>;
  page_id: number;
  email: string;
  token: string;
  confirmed_at: number | null;
  expires_at: number;
  created_at: number;
}

export interface StatusMailOutboxTable {
  mail_id: Generated<number>;
  page_id: number | null;
  to_email: string;
  subject: string;
  body: string;
  unsubscribe_url: string | null;
  idempotency_key: string;
  status: Generated<'pending' | 'sent' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface StatusMaintenanceNoticesTable {
  window_id: number;
  event: string;
  sent_at: number;
}

export interface Schema {
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  schema_migrations: SchemaMigrationsTable;
  incident_events: IncidentEventsTable;
  leader_leases: LeaderLeasesTable;
  control_plane_processes: ControlPlaneProcessesTable;
  agents: AgentsTable;
  agent_tokens: AgentTokensTable;
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
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  workspace_invitations: WorkspaceInvitationsTable;
  audit_log: AuditLogTable;
  users: UsersTable;
  backup_codes: BackupCodesTable;
  email_verifications: EmailVerificationsTable;
  api_keys: ApiKeysTable;
  rate_limit_events: RateLimitEventsTable;
  billing_customers: BillingCustomersTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_events: BillingEventsTable;
  billing_checkout_claims: BillingCheckoutClaimsTable;
  plan_changes: PlanChangesTable;
  user_identities: UserIdentitiesTable;
  sso_workspace_joins: SsoWorkspaceJoinsTable;
  screenshots: ScreenshotsTable;
  packages: PackagesTable;
  regions: RegionsTable;
  monitor_types: MonitorTypesTable;
  status_pages: StatusPagesTable;
  status_components: StatusComponentsTable;
  status_reports: StatusReportsTable;
  status_report_components: StatusReportComponentsTable;
  status_report_updates: StatusReportUpdatesTable;
  maintenance_windows: MaintenanceWindowsTable;
  maintenance_endpoints: MaintenanceEndpointsTable;
  status_subscribers: StatusSubscribersTable;
  status_mail_outbox: StatusMailOutboxTable;
  status_maintenance_notices: StatusMaintenanceNoticesTable;
}
