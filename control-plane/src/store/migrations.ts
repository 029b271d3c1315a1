// Numbered migrations, applied in order at start inside one transaction each.
// SQLite runs `sql`, `run` and `steps`; Postgres starts from a baseline (sql/postgres-baseline.ts)
// standing for the migrations it lists and runs only `steps` of every later one: a new migration is
// written once with Kysely's builders in `steps` and leaves `sql` empty.
import type Database from 'better-sqlite3';
import type { ColumnDefinitionBuilder, Compilable, CreateTableBuilder } from 'kysely';
import type { MigrationDb, SqlDialect } from './sql/compile';

export type { MigrationDb };

export interface Migration {
  id: number;
  name: string;
  /** SQLite only: the migrations the Postgres baseline stands for. '' in later ones. */
  sql: string;
  /** SQLite only: runs after `sql`, in the same transaction, for steps SQL alone cannot say. */
  run?: (db: Database.Database) => void;
  /** Both databases: schema or query builders, compiled for the database at hand, run in order. */
  steps?: (db: MigrationDb, dialect: SqlDialect) => Compilable[];
  /** A table rebuild: foreign keys are off while it runs (no cascade on DROP) and checked after. */
  rebuildsTables?: boolean;
}

/** A table's own numeric key, given out by the database: SQLite's rowid alias, a Postgres identity
 *  (by default, so a copy or a seed may still set it). */
export function withIdKey<T extends string>(table: CreateTableBuilder<T, never>, column: string, dialect: SqlDialect): CreateTableBuilder<T, never> {
  return dialect === 'postgres'
    ? table.addColumn(column, 'bigint', (c: ColumnDefinitionBuilder) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn(column, 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey());
}

/**
 * Rebuilds a table with `url_id INTEGER PRIMARY KEY` made AUTOINCREMENT, keeping whatever it has by
 * now: every column (also those later migrations added), index, trigger, foreign key and row.
 */
export function rebuildWithAutoincrement(db: Database.Database, table: string, key: string): void {
  const createSql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined;
  if (!createSql) throw new Error(`migration: table ${table} not found`);
  if (/AUTOINCREMENT/i.test(createSql)) return;
  const keyDef = new RegExp(`(\\b${key}\\s+INTEGER\\s+PRIMARY\\s+KEY)(?!\\s+AUTOINCREMENT)`, 'i');
  if (!keyDef.test(createSql)) throw new Error(`migration: ${table}.${key} is not an INTEGER PRIMARY KEY`);
  const extras = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL").pluck().all(table) as string[];
  const tmp = `${table}__autoincrement`;
  const columns = (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).map((c) => `"${c}"`).join(', ');
  db.exec(createSql.replace(/^CREATE TABLE\s+("?)\w+\1/i, `CREATE TABLE ${tmp}`).replace(keyDef, '$1 AUTOINCREMENT'));
  db.exec(`INSERT INTO ${tmp} (${columns}) SELECT ${columns} FROM ${table}`);
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${tmp} RENAME TO ${table}`);
  for (const sql of extras) db.exec(sql);
}

export const MIGRATIONS: Migration[] = [
  {
    id: 1,
    name: 'core',
    sql: `
CREATE TABLE packages (
  package_id INTEGER PRIMARY KEY,
  package_name TEXT NOT NULL UNIQUE,
  price REAL NOT NULL,
  currency TEXT NOT NULL DEFAULT 'EUR',
  description TEXT NOT NULL DEFAULT '',
  max_endpoints INTEGER NOT NULL,
  max_regions INTEGER NOT NULL,
  check_frequency_seconds INTEGER NOT NULL,
  retention_days INTEGER NOT NULL,
  ssl_monitoring INTEGER NOT NULL,
  advanced_alerts INTEGER NOT NULL,
  api_access INTEGER NOT NULL,
  multi_region INTEGER NOT NULL,
  ping_host INTEGER NOT NULL,
  cert_expiry INTEGER NOT NULL,
  response_code INTEGER NOT NULL,
  response_time INTEGER NOT NULL,
  stripe_price_id TEXT NOT NULL DEFAULT '',
  sort_order INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE regions (
  region_id INTEGER PRIMARY KEY,
  region TEXT NOT NULL,
  city TEXT NOT NULL,
  primary_region INTEGER NOT NULL DEFAULT 0,
  UNIQUE (region, city)
);
CREATE TABLE monitor_types (
  monitor_type_id INTEGER PRIMARY KEY,
  type_code TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  requires_primary_region INTEGER NOT NULL
);
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL,
  email TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  package_id INTEGER NOT NULL REFERENCES packages(package_id),
  timezone TEXT NOT NULL DEFAULT 'UTC',
  totp_secret_enc TEXT,
  totp_pending_secret_enc TEXT,
  two_factor_enabled INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE UNIQUE INDEX users_username ON users (lower(username));
CREATE TABLE backup_codes (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  pending INTEGER NOT NULL DEFAULT 1,
  used_at TEXT
);
CREATE INDEX backup_codes_user ON backup_codes (user_id);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  revoked_reason TEXT
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);
CREATE TABLE endpoints (
  url_id INTEGER PRIMARY KEY,
  guid TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  regions TEXT NOT NULL DEFAULT '[]',
  ping_host INTEGER NOT NULL DEFAULT 0,
  cert_expiry INTEGER NOT NULL DEFAULT 0,
  response_code INTEGER NOT NULL DEFAULT 1,
  response_time INTEGER NOT NULL DEFAULT 0,
  monitoring_enabled INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX endpoints_user ON endpoints (user_id, url_id);
CREATE TABLE alert_thresholds (
  threshold_id INTEGER PRIMARY KEY,
  url_id INTEGER NOT NULL REFERENCES endpoints(url_id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL,
  monitor_type_id INTEGER NOT NULL REFERENCES monitor_types(monitor_type_id),
  region_id INTEGER REFERENCES regions(region_id),
  threshold_value INTEGER NOT NULL,
  threshold_operator TEXT NOT NULL,
  is_enabled INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX alert_thresholds_url ON alert_thresholds (url_id, user_id);
CREATE TABLE alert_methods (
  alert_method_id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  is_enabled INTEGER NOT NULL DEFAULT 1,
  config_enc TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE (user_id, platform)
);
CREATE TABLE rate_limit_events (
  bucket TEXT NOT NULL,
  key TEXT NOT NULL,
  ts INTEGER NOT NULL
);
CREATE INDEX rate_limit_events_key ON rate_limit_events (bucket, key, ts);
`,
  },
  {
    id: 2,
    name: 'agents',
    sql: `
CREATE TABLE agent_tokens (
  token_id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  region TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  used_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE agents (
  agent_id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  region TEXT NOT NULL,
  hostname TEXT NOT NULL DEFAULT '',
  version TEXT NOT NULL DEFAULT '',
  token_id TEXT REFERENCES agent_tokens(token_id),
  created_at INTEGER NOT NULL,
  last_heartbeat_at INTEGER,
  lease_expires_at INTEGER,
  checks_owned INTEGER NOT NULL DEFAULT 0,
  checks_per_minute REAL NOT NULL DEFAULT 0,
  outbox_depth INTEGER NOT NULL DEFAULT 0,
  scheduling_lag_ms_p99 REAL NOT NULL DEFAULT 0,
  revoked_at INTEGER
);
CREATE INDEX agents_region ON agents (region);
`,
  },
  {
    id: 3,
    name: 'hardening_accounts',
    sql: `
ALTER TABLE users ADD COLUMN totp_last_step INTEGER;
CREATE INDEX refresh_tokens_expires ON refresh_tokens (expires_at);
`,
  },
  {
    id: 4,
    name: 'billing',
    // Stripe mirror: one customer per user, subscriptions as Stripe last said, processed webhook
    // event ids (idempotency), claimed anonymous checkouts, and the plan changes shown on the dashboard.
    sql: `
CREATE TABLE billing_customers (
  stripe_customer_id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
);
CREATE INDEX billing_customers_user ON billing_customers (user_id, created_at);
CREATE TABLE billing_subscriptions (
  stripe_subscription_id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stripe_customer_id TEXT NOT NULL,
  stripe_price_id TEXT NOT NULL,
  status TEXT NOT NULL,
  current_period_start INTEGER,
  current_period_end INTEGER,
  created INTEGER NOT NULL,
  past_due_since INTEGER,
  updated_at INTEGER NOT NULL
);
CREATE INDEX billing_subscriptions_user ON billing_subscriptions (user_id, created);
CREATE TABLE billing_events (
  event_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  received_at INTEGER NOT NULL
);
CREATE TABLE billing_checkout_claims (
  checkout_session_id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  claimed_at INTEGER NOT NULL
);
CREATE TABLE plan_changes (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  from_package TEXT NOT NULL,
  to_package TEXT NOT NULL,
  reason TEXT NOT NULL,
  message TEXT NOT NULL,
  details TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  dismissed_at INTEGER
);
CREATE INDEX plan_changes_user ON plan_changes (user_id, id);
`,
  },
  {
    id: 5,
    name: 'alerting',
    // Evaluation state per (endpoint, condition, region); one row per (endpoint, condition) for the
    // confirmed endpoint-level state and its flapping window; incidents; the delivery outbox.
    sql: `
CREATE TABLE alert_region_states (
  url_id INTEGER NOT NULL REFERENCES endpoints(url_id) ON DELETE CASCADE,
  condition TEXT NOT NULL,
  region TEXT NOT NULL,
  fails INTEGER NOT NULL DEFAULT 0,
  passes INTEGER NOT NULL DEFAULT 0,
  down INTEGER NOT NULL DEFAULT 0,
  last_ts INTEGER NOT NULL DEFAULT 0,
  cause TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (url_id, condition, region)
) WITHOUT ROWID;
CREATE TABLE alert_conditions (
  url_id INTEGER NOT NULL REFERENCES endpoints(url_id) ON DELETE CASCADE,
  condition TEXT NOT NULL,
  down INTEGER NOT NULL DEFAULT 0,
  changes TEXT NOT NULL DEFAULT '[]',
  flapping INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (url_id, condition)
) WITHOUT ROWID;
CREATE TABLE incidents (
  incident_id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url_id INTEGER NOT NULL,
  condition TEXT NOT NULL,
  regions TEXT NOT NULL DEFAULT '[]',
  cause TEXT NOT NULL,
  flapping INTEGER NOT NULL DEFAULT 0,
  opened_at INTEGER NOT NULL,
  resolved_at INTEGER,
  resolved_silently INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX incidents_one_open ON incidents (url_id, condition) WHERE resolved_at IS NULL;
CREATE INDEX incidents_user ON incidents (user_id, url_id, opened_at);
CREATE TABLE alert_deliveries (
  delivery_id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  alert_method_id INTEGER NOT NULL REFERENCES alert_methods(alert_method_id) ON DELETE CASCADE,
  incident_id INTEGER REFERENCES incidents(incident_id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_deliveries_method ON alert_deliveries (alert_method_id, created_at);
`,
  },
  {
    // An endpoint id is never given out twice (results in ClickHouse are keyed by it), and a
    // bootstrap token can be limited to N registrations (NULL: any number).
    id: 6,
    name: 'hardening_agents',
    sql: `ALTER TABLE agent_tokens ADD COLUMN max_uses INTEGER;`,
    run: (db) => rebuildWithAutoincrement(db, 'endpoints', 'url_id'),
    rebuildsTables: true,
  },
  {
    id: 7,
    name: 'api_keys',
    sql: `
CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  last_used_at TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id);
`,
  },
  {
    // Which agent each check was last given to, so a restarted control plane accepts an agent's
    // buffered results only for checks it held.
    id: 8,
    name: 'agent_held_checks',
    sql: `CREATE TABLE agent_held_checks (check_id TEXT NOT NULL, agent_id TEXT NOT NULL, PRIMARY KEY (check_id, agent_id)) WITHOUT ROWID;
CREATE INDEX agent_held_checks_agent ON agent_held_checks (agent_id);`,
  },
  {
    // A customer linked by a checkout claimed at login (an anonymous checkout someone else
    // may have started) never decides the plan over the user's own; email verification (accounts
    // that existed before count as verified) with one-use links, also for a new address.
    id: 9,
    name: 'claims_and_email_verification',
    sql: `
ALTER TABLE billing_customers ADD COLUMN claimed_at_login INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 1;
CREATE TABLE email_verifications (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  -- the session that asked to move to this address: it stays signed in, the others end
  session_id TEXT
);
CREATE INDEX email_verifications_user ON email_verifications (user_id);
`,
  },
  {
    // The dashboard's per-endpoint live state (status, last check, last 30 outcomes), kept as results
    // are ingested (services/live-state.ts) so the list never scans ClickHouse for it.
    id: 12,
    name: 'endpoint_live_state',
    sql: `
CREATE TABLE endpoint_live (
  url_id INTEGER PRIMARY KEY REFERENCES endpoints(url_id) ON DELETE CASCADE,
  state TEXT NOT NULL
);
`,
  },
  {
    // Public status pages with their components, incident reports (what people write to
    // their users), scheduled maintenance and subscribers; plans gain max_status_pages.
    id: 16,
    name: 'status_pages',
    sql: `
ALTER TABLE packages ADD COLUMN max_status_pages INTEGER NOT NULL DEFAULT 1;
UPDATE packages SET max_status_pages = CASE package_name WHEN 'Starter' THEN 3 WHEN 'Pro' THEN 10 WHEN 'Business' THEN 50 ELSE 1 END;
CREATE TABLE status_pages (
  page_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  published INTEGER NOT NULL DEFAULT 1,
  password_hash TEXT,
  custom_domain TEXT UNIQUE,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  auto_reports INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX status_pages_user ON status_pages (user_id);
CREATE TABLE status_components (
  component_id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES status_pages(page_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  url_id INTEGER REFERENCES endpoints(url_id) ON DELETE SET NULL,
  group_name TEXT
);
CREATE INDEX status_components_page ON status_components (page_id, position);
CREATE INDEX status_components_endpoint ON status_components (url_id);
CREATE TABLE status_reports (
  report_id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES status_pages(page_id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  status TEXT NOT NULL,
  incident_id INTEGER,
  created_at INTEGER NOT NULL,
  resolved_at INTEGER
);
CREATE INDEX status_reports_page ON status_reports (page_id, created_at);
CREATE INDEX status_reports_incident ON status_reports (incident_id) WHERE incident_id IS NOT NULL;
CREATE TABLE status_report_components (
  report_id INTEGER NOT NULL REFERENCES status_reports(report_id) ON DELETE CASCADE,
  component_id INTEGER NOT NULL REFERENCES status_components(component_id) ON DELETE CASCADE,
  impact TEXT NOT NULL,
  PRIMARY KEY (report_id, component_id)
);
CREATE TABLE status_report_updates (
  update_id INTEGER PRIMARY KEY AUTOINCREMENT,
  report_id INTEGER NOT NULL REFERENCES status_reports(report_id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX status_report_updates_report ON status_report_updates (report_id, created_at);
CREATE TABLE maintenance_windows (
  window_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  message TEXT NOT NULL DEFAULT '',
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX maintenance_windows_user ON maintenance_windows (user_id, starts_at);
CREATE INDEX maintenance_windows_ends ON maintenance_windows (ends_at);
CREATE TABLE maintenance_endpoints (
  window_id INTEGER NOT NULL REFERENCES maintenance_windows(window_id) ON DELETE CASCADE,
  url_id INTEGER NOT NULL REFERENCES endpoints(url_id) ON DELETE CASCADE,
  PRIMARY KEY (window_id, url_id)
);
CREATE INDEX maintenance_endpoints_url ON maintenance_endpoints (url_id);
CREATE TABLE status_subscribers (
  subscriber_id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES status_pages(page_id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  token TEXT NOT NULL UNIQUE,
  confirmed_at INTEGER,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (page_id, email)
);
`,
  },
  {
    // Mail to status-page subscribers goes through its own durable outbox (retried with
    // backoff, picked up again after a restart); maintenance notices are sent once per window and event.
    id: 17,
    name: 'status_mail',
    sql: `
CREATE TABLE status_mail_outbox (
  mail_id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER REFERENCES status_pages(page_id) ON DELETE CASCADE,
  to_email TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  unsubscribe_url TEXT,
  idempotency_key TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  sent_at INTEGER
);
CREATE INDEX status_mail_outbox_due ON status_mail_outbox (next_attempt_at) WHERE status = 'pending';
CREATE TABLE status_maintenance_notices (
  window_id INTEGER NOT NULL REFERENCES maintenance_windows(window_id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  sent_at INTEGER NOT NULL,
  PRIMARY KEY (window_id, event)
);
`,
  },
  {
    // Check kinds beyond GET: an endpoint's kind and check options as JSON (target,
    // record type, resolver, request with secret header values sealed, assertions) in a table of
    // their own; an endpoint without a row is an http GET as before. A plan's endpoint kinds
    // (NULL: all; Free: http and heartbeat).
    id: 18,
    name: 'check_kinds',
    sql: `
CREATE TABLE endpoint_checks (
  url_id INTEGER PRIMARY KEY REFERENCES endpoints(url_id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  config TEXT NOT NULL
);
ALTER TABLE packages ADD COLUMN monitor_kinds TEXT;
UPDATE packages SET monitor_kinds = '["http","heartbeat"]' WHERE package_name = 'Free';
`,
  },
  {
    // The workspace, not the user, owns everything. A workspace is an account row in
    // `users` (kind 'workspace', no password, cannot sign in) or, for the personal workspace, the
    // user's own row: the workspace id is the user_id its endpoints, thresholds, alert methods,
    // incidents, API keys, plan and Stripe subscription already carry, so every existing row is in
    // its user's personal workspace without being rewritten, and every later table keyed by user_id
    // (status pages, maintenance windows, heartbeat monitors) follows. A trigger gives every new
    // person a personal workspace (signup, SSO, admin). API keys remember the member who made them
    // (they act with that member's role, and end when the member leaves).
    id: 20,
    name: 'workspaces',
    sql: `
ALTER TABLE users ADD COLUMN kind TEXT NOT NULL DEFAULT 'person' CHECK (kind IN ('person', 'workspace'));
CREATE TABLE workspaces (
  id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  personal INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE workspace_members (
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  PRIMARY KEY (workspace_id, user_id)
) WITHOUT ROWID;
CREATE INDEX workspace_members_user ON workspace_members (user_id);
INSERT INTO workspaces (id, name, personal) SELECT id, 'Personal', 1 FROM users;
INSERT INTO workspace_members (workspace_id, user_id, role) SELECT id, id, 'owner' FROM users;
CREATE TRIGGER users_personal_workspace AFTER INSERT ON users WHEN NEW.kind = 'person' BEGIN
  INSERT INTO workspaces (id, name, personal) VALUES (NEW.id, 'Personal', 1);
  INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (NEW.id, NEW.id, 'owner');
END;
ALTER TABLE api_keys ADD COLUMN created_by INTEGER REFERENCES users(id) ON DELETE CASCADE;
UPDATE api_keys SET created_by = user_id;
CREATE TABLE workspace_invitations (
  id INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  token_hash TEXT NOT NULL UNIQUE,
  invited_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  accepted_at INTEGER,
  accepted_by INTEGER REFERENCES users(id) ON DELETE SET NULL
);
CREATE INDEX workspace_invitations_ws ON workspace_invitations (workspace_id, id);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  member_id INTEGER,
  member_name TEXT NOT NULL DEFAULT '',
  action TEXT NOT NULL,
  target_id TEXT,
  summary TEXT NOT NULL DEFAULT '',
  client_address TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_ws ON audit_log (workspace_id, id);
CREATE INDEX audit_log_at ON audit_log (at);
ALTER TABLE packages ADD COLUMN max_members INTEGER NOT NULL DEFAULT 1;
UPDATE packages SET max_members = CASE package_name WHEN 'Starter' THEN 3 WHEN 'Pro' THEN 10 WHEN 'Business' THEN 50 ELSE 1 END;
`,
  },
  {
    // A person signed in through OpenID Connect, by the provider's (issuer, subject).
    id: 21,
    name: 'oidc_identities',
    sql: `
CREATE TABLE user_identities (
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, subject)
) WITHOUT ROWID;
CREATE INDEX user_identities_user ON user_identities (user_id);
`,
  },
  {
    // Heartbeat monitors: the ping token (SHA-256 to look it up, sealed to show it to its
    // owner again) and the schedule's state, which survives a restart: deadline_at is when the next
    // ping is due; down_for is the deadline whose miss is already down (no second incident for it).
    // Keyed by url_id only: ownership is the endpoint's.
    id: 30,
    name: 'heartbeats',
    sql: `
CREATE TABLE heartbeats (
  url_id INTEGER PRIMARY KEY REFERENCES endpoints(url_id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  token_sealed TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'new',
  last_ping_at INTEGER,
  started_at INTEGER,
  deadline_at INTEGER,
  down_for INTEGER,
  last_body TEXT
);
`,
  },
  {
    // The ping log: the last 100 pings of each heartbeat (time, kind, source address, body excerpt).
    id: 31,
    name: 'heartbeat_pings',
    sql: `
CREATE TABLE heartbeat_pings (
  ping_id INTEGER PRIMARY KEY AUTOINCREMENT,
  url_id INTEGER NOT NULL REFERENCES endpoints(url_id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '',
  run_ms INTEGER
);
CREATE INDEX heartbeat_pings_by_url ON heartbeat_pings (url_id, ping_id);
`,
  },
  {
    // Single sign-on adds a person to OIDC_DEFAULT_WORKSPACE_ID once: a member an admin removed stays
    // removed on the next sign-in. Joins made before this table are read back from the audit log.
    id: 45,
    name: 'sso_workspace_joins',
    sql: `
CREATE TABLE sso_workspace_joins (
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO sso_workspace_joins (workspace_id, user_id, at)
  SELECT a.workspace_id, CAST(a.target_id AS INTEGER), MIN(a.at) FROM audit_log a
  WHERE a.action = 'member.join' AND a.summary LIKE 'via single sign-on%'
    AND EXISTS (SELECT 1 FROM users u WHERE u.id = CAST(a.target_id AS INTEGER))
  GROUP BY a.workspace_id, a.target_id;
`,
  },
  {
    // Custom domains need proof and a paid plan. `custom_domain` (UNIQUE) becomes the verified name a
    // page serves; `custom_domain_claim` is the name its owner asked for (claims of one name may be
    // many), proved by a DNS TXT record `_upfleet-challenge.{claim}` = `custom_domain_token`. Names
    // set before are claims again until proved (the daily check proves those whose record exists).
    id: 46,
    name: 'custom_domain_proof',
    sql: `
ALTER TABLE status_pages ADD COLUMN custom_domain_claim TEXT;
ALTER TABLE status_pages ADD COLUMN custom_domain_token TEXT;
ALTER TABLE status_pages ADD COLUMN custom_domain_checked_at INTEGER;
UPDATE status_pages SET custom_domain_claim = custom_domain, custom_domain = NULL;
UPDATE status_pages SET custom_domain_token = lower(hex(randomblob(16)));
CREATE INDEX status_pages_claim ON status_pages (custom_domain_claim) WHERE custom_domain_claim IS NOT NULL;
ALTER TABLE packages ADD COLUMN custom_domains INTEGER NOT NULL DEFAULT 0;
UPDATE packages SET custom_domains = CASE WHEN price > 0 THEN 1 ELSE 0 END;
`,
  },
  {
    // An endpoint's own check interval; NULL: its plan's. Never below the plan's (the monitored
    // queries take the larger), so a downgrade slows it without rewriting rows.
    id: 60,
    name: 'endpoint_check_frequency',
    sql: `ALTER TABLE endpoints ADD COLUMN check_frequency_seconds INTEGER;`,
  },
  {
    // Postgres has no rowid: the key a counted attempt is taken back by becomes a column of its own
    // (SQLite keeps the same values: an INTEGER PRIMARY KEY is the rowid).
    id: 80,
    name: 'rate_limit_event_ids',
    sql: `
CREATE TABLE rate_limit_events_new (
  id INTEGER PRIMARY KEY,
  bucket TEXT NOT NULL,
  key TEXT NOT NULL,
  ts INTEGER NOT NULL
);
INSERT INTO rate_limit_events_new (id, bucket, key, ts) SELECT rowid, bucket, key, ts FROM rate_limit_events;
DROP TABLE rate_limit_events;
ALTER TABLE rate_limit_events_new RENAME TO rate_limit_events;
CREATE INDEX rate_limit_events_key ON rate_limit_events (bucket, key, ts);
`,
  },
  {
    // Incidents people handle: who acknowledged and when, and a timeline of what happened beyond
    // the incident's own times and its deliveries (escalated to step N, a reminder, a method skipped,
    // suppressed by a parent). A delivery records the escalation step that sent it (NULL: none).
    id: 81,
    name: 'incident_handling',
    sql: '',
    steps: (db, dialect) => [
      db.schema.alterTable('incidents').addColumn('acknowledged_at', 'bigint'),
      db.schema.alterTable('incidents').addColumn('acknowledged_by', 'bigint'),
      db.schema.alterTable('alert_deliveries').addColumn('step', 'bigint'),
      withIdKey(db.schema.createTable('incident_events'), 'event_id', dialect)
        .addColumn('incident_id', 'bigint', (c) => c.notNull().references('incidents.incident_id').onDelete('cascade'))
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('step', 'bigint')
        .addColumn('alert_method_id', 'bigint')
        .addColumn('detail', 'text', (c) => c.notNull().defaultTo('')),
      db.schema.createIndex('incident_events_incident').on('incident_events').columns(['incident_id', 'at']),
    ],
  },
  {
    // On-call escalation. A policy's steps are one JSON list (read and written whole). An endpoint
    // names its policy and the endpoint it depends on (NULL: none; no foreign keys, as ALTER TABLE
    // cannot add them on SQLite: deleting a policy or an endpoint clears them in the same write).
    // An incident opened while its parent was down records the parent's incident. The escalation of
    // an incident is durable: where it stands (next step, next reminder, when due) is a row, so a
    // restart neither skips nor repeats a step; `steps` is the policy as it was when it started.
    id: 95,
    name: 'escalation_policies',
    sql: '',
    steps: (db, dialect) => [
      withIdKey(db.schema.createTable('escalation_policies'), 'escalation_policy_id', dialect)
        .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('steps', 'text', (c) => c.notNull())
        .addColumn('repeat', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('repeat_every_minutes', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull()),
      db.schema.createIndex('escalation_policies_user').on('escalation_policies').column('user_id'),
      db.schema.alterTable('endpoints').addColumn('escalation_policy_id', 'bigint'),
      db.schema.alterTable('endpoints').addColumn('depends_on', 'bigint'),
      db.schema.alterTable('incidents').addColumn('suppressed_by', 'bigint'),
      db.schema.createIndex('incidents_suppressed_by').on('incidents').column('suppressed_by'),
      db.schema.createTable('incident_escalations')
        .addColumn('incident_id', 'bigint', (c) => c.primaryKey().references('incidents.incident_id').onDelete('cascade'))
        .addColumn('escalation_policy_id', 'bigint')
        .addColumn('steps', 'text', (c) => c.notNull())
        .addColumn('repeat', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('repeat_every_minutes', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('next_step', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('next_repeat', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('due_at', 'bigint')
        .addColumn('ack_sent', 'bigint', (c) => c.notNull().defaultTo(0)),
      db.schema.createIndex('incident_escalations_due').on('incident_escalations').column('due_at'),
    ],
  },
  {
    // Where an incident's first message to a method went (Slack: channel and message ts), so its
    // later messages reply in that thread and its resolve updates that message, also after a restart.
    id: 96,
    name: 'alert_threads',
    sql: '',
    steps: (db) => [
      db.schema.createTable('alert_threads')
        .addColumn('incident_id', 'bigint', (c) => c.notNull().references('incidents.incident_id').onDelete('cascade'))
        .addColumn('alert_method_id', 'bigint', (c) => c.notNull().references('alert_methods.alert_method_id').onDelete('cascade'))
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('ts', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('alert_threads_pk', ['incident_id', 'alert_method_id']),
    ],
  },
  {
    // An endpoint's service level objective: the uptime promised (percent; NULL: none) and the days
    // it is measured over. Reports and error budgets read them; checks do not.
    id: 100,
    name: 'endpoint_slo',
    sql: '',
    steps: (db) => [
      db.schema.alterTable('endpoints').addColumn('slo_target', 'double precision'),
      db.schema.alterTable('endpoints').addColumn('slo_window_days', 'bigint', (c) => c.notNull().defaultTo(30)),
    ],
  },
  {
    // A workspace's monthly SLA report by mail: whether it is on and to whom, and each month it was
    // sent for (the primary key makes it once per month however often the control plane restarts).
    id: 101,
    name: 'report_schedules',
    sql: '',
    steps: (db) => [
      db.schema.createTable('report_schedules')
        .addColumn('workspace_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('enabled', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('recipients', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('enabled_at', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull()),
      db.schema.createTable('report_runs')
        .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('sent_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_runs_pk', ['workspace_id', 'month']),
    ],
  },
  {
    // README badges: an unguessable token per endpoint, rotated by its owner (the old one stops at once).
    id: 105,
    name: 'endpoint_badges',
    sql: '',
    steps: (db) => [
      db.schema.createTable('endpoint_badges')
        .addColumn('url_id', 'bigint', (c) => c.primaryKey().references('endpoints.url_id').onDelete('cascade'))
        .addColumn('badge_token', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull()),
    ],
  },
  {
    // Whether an agent can run browser checks (a Chromium it can start) and why not, from its heartbeat.
    id: 110,
    name: 'agent_browser_checks',
    sql: '',
    steps: (db) => [
      db.schema.alterTable('agents').addColumn('browser_checks', 'bigint', (c) => c.notNull().defaultTo(0)),
      db.schema.alterTable('agents').addColumn('browser_unavailable', 'text', (c) => c.notNull().defaultTo('')),
    ],
  },
  {
    // Browser endpoints per account: Free 0, Starter 2, Pro 10, Business 50 (a fresh database's seed sets them too).
    id: 111,
    name: 'packages_browser_checks',
    sql: '',
    steps: (db) => [
      db.schema.alterTable('packages').addColumn('browser_checks', 'bigint', (c) => c.notNull().defaultTo(0)),
      ...([['Starter', 2], ['Pro', 10], ['Business', 50]] as const).map(([name, n]) =>
        db.updateTable('packages').set({ browser_checks: n }).where('package_name', '=', name)),
    ],
  },
  {
    // Several control planes on one database. Once-only work (deadlines, outboxes, retention) runs
    // on the holder of a lease row; a takeover raises its epoch, and a write made under the lease
    // checks the epoch in its transaction. Each process keeps a row of its own up to date.
    id: 120,
    name: 'cluster_lease',
    sql: '',
    steps: (db) => [
      db.schema.createTable('leader_leases')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('epoch', 'bigint', (c) => c.notNull())
        .addColumn('acquired_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull()),
      db.schema.createTable('control_plane_processes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('pid', 'bigint', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen', 'bigint', (c) => c.notNull()),
    ],
  },
  {
    // Storms: incidents of a workspace whose first messages went out together as one grouped
    // message per method (a group), each incident naming its group (NULL: alone) and whether its
    // recovery was told yet; a grouped delivery names its group (its incident_id is NULL). A
    // workspace's alert settings: how many openings within 60 s make a storm (its group threshold).
    id: 130,
    name: 'incident_groups',
    sql: '',
    steps: (db, dialect) => [
      withIdKey(db.schema.createTable('incident_groups'), 'group_id', dialect)
        .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull()),
      db.schema.createIndex('incident_groups_user').on('incident_groups').column('user_id'),
      db.schema.alterTable('incidents').addColumn('group_id', 'bigint'),
      db.schema.alterTable('incidents').addColumn('group_recovery_sent', 'bigint', (c) => c.notNull().defaultTo(0)),
      db.schema.createIndex('incidents_group').on('incidents').column('group_id'),
      db.schema.createIndex('incidents_user_opened').on('incidents').columns(['user_id', 'opened_at']),
      db.schema.alterTable('alert_deliveries').addColumn('group_id', 'bigint'),
      db.schema.createIndex('alert_deliveries_group').on('alert_deliveries').column('group_id'),
      db.schema.createTable('alert_settings')
        .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('group_threshold', 'bigint', (c) => c.notNull().defaultTo(5))
        .addColumn('updated_at', 'bigint', (c) => c.notNull()),
    ],
  },
  {
    // Browser checks' screenshots: the bytes live in a blob store (files under DATA_DIR on one
    // node), the rows say whose they are and until when. The id is derived from the result and
    // the name, so a re-sent batch stores nothing twice.
    id: 135,
    name: 'screenshots',
    sql: '',
    steps: (db) => [
      db.schema.createTable('screenshots')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'bigint', (c) => c.notNull())
        .addColumn('endpoint_id', 'bigint', (c) => c.notNull())
        .addColumn('result_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('step', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('mime', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('taken_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull()),
      db.schema.createIndex('screenshots_endpoint').on('screenshots').columns(['endpoint_id', 'taken_at']),
      db.schema.createIndex('screenshots_expires').on('screenshots').column('expires_at'),
      db.schema.createIndex('screenshots_taken').on('screenshots').column('taken_at'),
    ],
  },
];

/** The one line a process stops with when the database was migrated by a newer Upfleet. */
export function schemaNewerThanCode(unknown: { id: number; name: string }[]): Error {
  const list = unknown.map((m) => `${m.id} (${m.name})`).join(', ');
  return new Error(`The database schema is newer than this Upfleet: migration ${list} is unknown to it. Run the newer version, or restore the backup taken before the upgrade.`);
}
