// Browser-safe REST shapes shared by control-plane, web and cli (SPEC.md sections 3 and 7).
// Types and constants only: no Node imports, so the web bundle can use it. Over 350 lines on purpose:
// it is the one contract of every REST answer (declarations only, grouped by area), which the answer
// schemas in schemas/responses.ts are checked against at compile time.
import type { Assertion, DnsRecordType, EndpointKind, HttpMethod } from './assertions';
import type { BrowserStep } from './browser-steps';

export type ApiSuccess<T> = { success: true; data: T; message?: string };
export type ApiFailure = { success: false; error: string; requires2FA?: boolean };
export type ApiResponse<T> = ApiSuccess<T> | ApiFailure;

export interface User {
  id: number;
  username: string;
  email: string;
  timezone: string;
  two_factor_enabled: boolean;
}

export interface AuthTokens { accessToken: string; refreshToken: string }
export interface AuthResult extends AuthTokens { user: User }

export type Currency = 'EUR' | 'USD' | 'GBP' | 'JPY';

export interface Package {
  package_id: number;
  package_name: string;
  price: number;
  currency: Currency;
  description: string;
  max_endpoints: number;
  max_regions: number;
  /** Members a workspace on this plan may have (invitations beyond it are refused). */
  max_members: number;
  check_frequency_seconds: number;
  retention_days: number;
  ssl_monitoring: boolean;
  advanced_alerts: boolean;
  api_access: boolean;
  multi_region: boolean;
  ping_host: boolean;
  cert_expiry: boolean;
  response_code: boolean;
  response_time: boolean;
  stripe_price_id: string;
  /** Status pages an account may have. */
  max_status_pages: number;
  /** Status pages may serve a custom domain (proved by a DNS TXT record). */
  custom_domains: boolean;
  /** The endpoint kinds the plan allows (every kind listed when the plan allows all). */
  monitor_kinds: EndpointKind[];
  /** Browser endpoints an account may have (each run is a whole Chromium on an agent). */
  browser_checks: number;
}

export interface Region {
  region_id: number;
  region: string;
  city: string;
  primary_region: boolean;
}

export const FEATURES = ['ping_host', 'cert_expiry', 'response_code', 'response_time'] as const;
export type Feature = (typeof FEATURES)[number];

export const FEATURE_LABELS: Record<Feature, string> = {
  ping_host: 'Ping Host',
  cert_expiry: 'Certificate Expiry',
  response_code: 'Response Code',
  response_time: 'Response Time',
};

export interface EndpointInput {
  name: string;
  url: string;
  description?: string;
  regions: string[];
  ping_host: boolean;
  cert_expiry: boolean;
  response_code: boolean;
  response_time: boolean;
}

/** A header of an HTTP check's request; a secret one's value is write-only (absent in answers). */
export interface HttpHeader { name: string; value?: string; secret?: boolean }
export interface HttpRequestOptions {
  method: HttpMethod;
  headers: HttpHeader[];
  body: string;
  follow_redirects: boolean;
  timeout_seconds?: number;
}

/** What an endpoint checks beyond its URL; absent members are the http defaults. */
export interface EndpointCheck {
  kind?: EndpointKind;
  /** tcp: host:port; dns: the name */
  target?: string;
  record_type?: DnsRecordType;
  resolver?: string;
  request?: HttpRequestOptions;
  assertions?: Assertion[];
  /** browser: the steps after loading the URL (a secret fill's value is never answered back). */
  steps?: BrowserStep[];
  /** browser: the whole run's limit, 1 to 60 s (30 when absent). */
  timeout_seconds?: number;
  /** heartbeat: expected every period_seconds, or on a five-field cron in timezone (IANA), then grace_seconds. */
  period_seconds?: number;
  cron?: string;
  timezone?: string;
  grace_seconds?: number;
  /** heartbeat: where the job pings, `{PUBLIC_URL}/ping/{token}` (shown to its owner only). */
  ping_url?: string;
  /** heartbeat: new (until the first ping), up, late (past the expected time), down (past the grace, or a failure ping), paused. */
  heartbeat_state?: 'new' | 'up' | 'late' | 'down' | 'paused';
}

export interface Endpoint extends Required<EndpointInput>, EndpointCheck, EndpointLive {
  /** Always present in answers, `http` included. */
  kind: EndpointKind;
  /** The endpoint's own check interval in seconds; absent: its plan's `check_frequency_seconds`. */
  check_frequency_seconds?: number;
  /** The uptime promised in percent (99.9); absent: no SLO. */
  slo_target?: number;
  /** The days the SLO is measured over (7, 28, 30 or 90); the server always sends it (absent: 30). */
  slo_window_days?: number;
  url_id: number;
  guid: string;
  monitoring_enabled: boolean;
  uptime_percentage: number | null;
  created_at: string;
  /** The escalation policy its incidents follow; null: every enabled alert method at once. */
  escalation_policy_id?: number | null;
  /** Another endpoint of the workspace this one depends on: while that one is down, this one's incidents send nothing. */
  depends_on?: number | null;
}

/** An endpoint as stored (create/update answers): no uptime, no live state. */
export type SavedEndpoint = Omit<Endpoint, 'uptime_percentage' | keyof EndpointLive>;

/**
 * What the dashboard shows at a glance: pending before the first result, paused when monitoring is
 * off, maintenance while a maintenance window of the endpoint is in progress.
 */
export const ENDPOINT_STATUSES = ['down', 'degraded', 'pending', 'up', 'paused', 'maintenance'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** One check of the heartbeat bar: when (epoch ms), passed or not, response ms and HTTP code (null without). */
export interface RecentCheck {
  at: number;
  ok: boolean;
  ms: number | null;
  code: number | null;
}

/** The live fields of the endpoint list, kept per endpoint as results arrive. */
export interface EndpointLive {
  status: EndpointStatus;
  last_checked_at: string | null;
  last_response_ms: number | null;
  last_status_code: number | null;
  /** The readable reason of the last failure ("HTTP 503 from EU - Germany"); null when up. */
  last_error: string | null;
  /** The last 30 checks, oldest first. */
  recent: RecentCheck[];
}

/** Endpoints per status, for the dashboard's summary (GET /api/users/dashboard `status_counts`). */
/** Endpoints per status; `maintenance` is present only while some endpoint is in a window. */
export type StatusCounts = Record<Exclude<EndpointStatus, 'maintenance'>, number> & { maintenance?: number };
/** Every status at 0, without `maintenance` (it appears when one is counted). */
export const emptyStatusCounts = (): StatusCounts => ({ down: 0, degraded: 0, pending: 0, up: 0, paused: 0 });
/** Count one endpoint of this status. */
export function countStatus(counts: StatusCounts, s: EndpointStatus): void {
  counts[s] = (counts[s] ?? 0) + 1;
}

export interface Dashboard {
  active_monitoring: number;
  total_endpoints: number;
  regions_count: number;
  package_name: string;
  max_regions: number;
  max_endpoints: number;
  multi_region: boolean;
  ping_host: boolean;
  cert_expiry: boolean;
  response_code: boolean;
  response_time: boolean;
  status_counts: StatusCounts;
  /** The endpoint kinds the plan allows. */
  monitor_kinds?: EndpointKind[];
  /** The plan's shortest check interval in seconds: an endpoint may choose this or longer. */
  check_frequency_seconds?: number;
}

export interface MonitorType {
  monitor_type_id: number;
  type_code: Feature;
  display_name: string;
  requires_primary_region: boolean;
}

export const THRESHOLD_OPERATORS = ['>', '<', '=', '!=', '>=', '<='] as const;
export type ThresholdOperator = (typeof THRESHOLD_OPERATORS)[number];

export interface AlertThresholdInput {
  monitor_type_id: number;
  threshold_value: number;
  threshold_operator: ThresholdOperator;
  is_enabled: boolean;
  region_id: number | null;
}

export interface AlertThreshold extends AlertThresholdInput {
  threshold_id: number;
  monitor_type: Feature;
  display_name: string;
  region_name: string | null;
}

export const ALERT_PLATFORMS = ['email', 'slack', 'telegram', 'webhook', 'sms', 'discord', 'teams', 'pagerduty'] as const;
export type AlertPlatform = (typeof ALERT_PLATFORMS)[number];

/** Config fields per platform (SPEC section 3). */
export const PLATFORM_FIELDS: Record<AlertPlatform, readonly string[]> = {
  email: ['email_address'],
  slack: ['bot_token', 'channel'],
  telegram: ['bot_token', 'chat_id'],
  webhook: ['webhook_url'],
  discord: ['webhook_url'],
  teams: ['webhook_url'],
  sms: ['phone_number'],
  pagerduty: ['routing_key'],
};

export interface AlertMethod {
  alert_method_id: number;
  platform: AlertPlatform;
  is_enabled: boolean;
  platform_config: Record<string, string>;
}

export interface Profile {
  username: string;
  email: string;
  timezone: string;
  /** Always true on a server without SMTP. */
  email_verified: boolean;
  /** A new address waiting for its verification link (the email stays the old one until then). */
  pending_email?: string;
}

export interface TwoFactorSetup { qrCodeUrl: string; secret: string; backupCodes: string[] }

export interface Subscription {
  package_name: string;
  price: number;
  currency: Currency;
  status: string;
  current_period_start: string | null;
  current_period_end: string | null;
  customer_portal_url: string | null;
}

export interface CheckoutSession {
  url: string;
  /** true when the user already pays: the URL is the customer portal, not a second subscription. */
  portal?: boolean;
}

/** One row of `upfleet package sync-stripe` (POST /api/admin/packages/sync-stripe). */
export interface PriceSyncRow {
  package_name: string;
  action: 'created' | 'linked' | 'kept' | 'skipped';
  stripe_price_id: string;
  lookup_key: string | null;
  note: string;
}

/** A plan change the dashboard reports: what changed and why (a downgrade never deletes). */
export interface PlanChangeNotice {
  id: number;
  from_package: string;
  to_package: string;
  reason: string;
  message: string;
  created_at: string;
  disabled_endpoints: string[];
}

export type GraphFunction = 'response_time' | 'response_code' | 'ping' | 'cert_expiry';

/** HTTP status classes of a response-code bucket; `failed` got no response at all. */
export const CODE_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'failed'] as const;
export type CodeClass = (typeof CODE_CLASSES)[number];

/** One response-code bucket: its checks by class, and how many passed (2xx, or accepted by assertions). */
export interface CodeBucket {
  t: number;
  checks: number;
  passed: number;
  classes: Record<CodeClass, number>;
}

export interface GraphSeries {
  itemId: string;
  function: GraphFunction;
  location: string;
  /** Response codes: a bucket with a failed check carries its worst failing status (a 5xx, else 0 for no response, else the highest), else its last status. */
  data: Array<[number, number]>;
  /** Response codes only: per bucket (the times of `data`), the checks by status class. */
  codes?: CodeBucket[];
  /** Response codes only: the latest status in the range. */
  lastCode?: number;
  /** Response codes only: passed checks in percent of all (two decimals), the uptime badge's rule; null without checks. */
  uptime?: number | null;
}

/** A failed check in a graph's range and why (an assertion's reason, a refused connection...). */
export interface GraphFailure { t: number; location: string; reason: string }

/** A browser check's page timings, graphed like other checks' response time. */
export const BROWSER_TIMINGS = ['ttfb', 'dom_content_loaded', 'load', 'lcp', 'total'] as const;
export type BrowserTiming = (typeof BROWSER_TIMINGS)[number];
export const BROWSER_TIMING_LABELS: Record<BrowserTiming, string> = {
  ttfb: 'TTFB', dom_content_loaded: 'DOMContentLoaded', load: 'Load', lcp: 'LCP', total: 'Total',
};
/** One timing of one location, averaged per bucket (ms). */
export interface BrowserTimingSeries { timing: BrowserTiming; location: string; data: Array<[number, number]> }
/** A browser check's failing run: the step (1-based; 0: the page itself), its action and reason, what the page said. */
export interface BrowserFailure {
  t: number;
  location: string;
  step: number;
  action: string;
  reason: string;
  console_errors: string[];
  failed_requests: string[];
  /** The screenshots stored for the run (ids in `GET /api/users/endpoints/{url_id}/screenshots/{id}`). */
  screenshot_ids: string[];
}
export interface BrowserGraphs { timings: BrowserTimingSeries[]; lastFailure: BrowserFailure | null }

/** A stored screenshot of a browser check (`GET /api/users/endpoints/{url_id}/screenshots`). */
export interface ScreenshotInfo {
  id: string;
  result_id: string;
  name: string;
  /** the step it was taken at (1-based; 0: the page load) */
  step: number;
  mime: 'image/png' | 'image/webp';
  bytes: number;
  taken_at: string;
}

export interface GraphsResponse {
  graphs: GraphSeries[]; from: number; to: number; bucketSeconds: number;
  /** Browser endpoints: the page timings per location and the latest failing run in the range. */
  browser?: BrowserGraphs;
  /** The latest failed checks in the range (at most 20, newest first). */
  failures?: GraphFailure[];
  /** The endpoint's uptime over the range, by the rule of the dashboard badge and the status page (maintenance left out); null without checks. */
  uptime?: number | null;
}

/** A user's API key as listed: never the key itself, only its first characters. */
export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** The answer to creating a key: the only time `key` (upk_…) is shown. */
export interface CreatedApiKey { id: number; name: string; key: string; prefix: string; created_at: string }

/** SPEC section 9 constants the web app and the server both enforce. */
export const LIMITS = {
  usernameMin: 3,
  usernameMax: 30,
  passwordMin: 8,
  twoFactorDigits: 6,
  maxApiKeys: 20,
} as const;

export const MESSAGES = {
  featureNotInPlan: (feature: string) =>
    `The ${feature} monitoring feature is not available in your current plan. Please upgrade to enable this feature.`,
  tooManyRegions: (n: number, plan: string) =>
    `You can only select up to ${n} region(s) with your ${plan} plan. Please upgrade to select more regions.`,
  tooManyEndpoints: (n: number, plan: string) =>
    `You have reached the limit of ${n} endpoints for your ${plan} plan. Please upgrade to add more endpoints.`,
  /** `checkout`: billing is on, so an owner can buy the upgrade; otherwise only the operator sets plans. */
  tooManyMembers: (n: number, plan: string, checkout = false) =>
    `You have reached the limit of ${n} members for your ${plan} plan. ` +
    (checkout
      ? 'To invite more members, an owner upgrades this workspace on the Pricing page.'
      : 'To invite more members, ask the operator of this server to move this workspace to a plan with more members.'),
  plansSetByOperator: 'Plans on this server are set by its operator. Ask them to move your workspace to another plan.',
  intervalNotInPlan: (seconds: number, plan: string) =>
    `Your ${plan} plan checks at most every ${seconds} seconds. Please upgrade for more frequent checks.`,
  roleNotAllowed: (role: string) => `Your role in this workspace (${role}) does not allow this action.`,
  tooManyWorkspaces: (n: number) => `You can own at most ${n} workspaces besides your personal one. Please delete one to create another.`,
  tooManyBrowserChecks: (n: number, plan: string) =>
    n === 0
      ? 'The Browser monitoring feature is not available in your current plan. Please upgrade to enable this feature.'
      : `You have reached the limit of ${n} browser checks for your ${plan} plan. Please upgrade to add more browser checks.`,
  /** A browser check's interval below its kind's floor. */
  browserIntervalTooShort: (seconds: number) => `A browser check runs at most every ${Math.round(seconds / 60)} minutes: check_frequency_seconds must be at least ${seconds}`,
  tooManyStatusPages: (n: number, plan: string) =>
    `You have reached the limit of ${n} status pages for your ${plan} plan. Please upgrade to add more status pages.`,
  duplicatePlatform:
    'An alert method for this platform already exists. Please choose a different platform or edit the existing one.',
  passwordsDoNotMatch: 'Passwords do not match',
  passwordTooShort: 'Password must be at least 8 characters long',
  newPasswordsDoNotMatch: 'New passwords do not match',
  newPasswordTooShort: 'New password must be at least 8 characters long',
  invalidThresholds: 'Please enter valid threshold values for all thresholds before saving.',
  invalidCredentials: 'Invalid email or password',
  invalidCode: 'Invalid verification code',
  billingNotConfigured: 'Billing is not configured',
  noSubscription: 'No active subscription found',
  priceMismatch: 'The price does not match the selected plan',
  checkoutClaimed: 'This checkout has already been used',
  apiAccessNotInPlan: 'API access is not available in your current plan. Please upgrade to enable this feature.',
  escalationNotInPlan: 'Escalation policies are not available in your current plan. Please upgrade to enable this feature.',
  customDomainsNotInPlan: 'Custom domains for status pages are not available in your current plan. Please upgrade to enable this feature.',
  tooManyApiKeys: `You can have at most ${LIMITS.maxApiKeys} API keys. Please revoke one to create another.`,
  apiKeyNotAllowed: 'API keys cannot be used on account routes. Please sign in to manage your account.',
  twoFactorDisableProof: 'Enter your current password or a verification code to disable two-factor authentication',
} as const;

/** An incident: one condition of one endpoint, from confirmation to recovery. */
export interface Incident {
  incident_id: number;
  url_id: number;
  /** 'down', or 'threshold:<monitor type>:<region or any>'. */
  condition: string;
  /** Region labels ('EU - Germany') confirmed in the condition. */
  regions: string[];
  cause: string;
  flapping: boolean;
  opened_at: string;
  resolved_at: string | null;
  /** open → acknowledged → resolved (acknowledging is optional; a resolved incident stays resolved). */
  state: IncidentState;
  acknowledged_at: string | null;
  acknowledged_by: IncidentAcker | null;
  /** The endpoint's name, or null once it was deleted. */
  endpoint_name: string | null;
  /** The parent endpoint's open incident that silenced this one (it sent nothing while that one lasted); null: none. */
  suppressed_by?: number | null;
  /** The storm group its first message went out in (one grouped message per method; acknowledge it whole with POST /api/users/incidents/groups/{id}/acknowledge); null: alone. */
  group_id?: number | null;
}

export const INCIDENT_STATES = ['open', 'acknowledged', 'resolved'] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];

/** Who acknowledged: a member in the app (or with an API key), or a recipient through a message's link. */
export interface IncidentAcker {
  user_id: number | null;
  name: string | null;
  email: string | null;
  via: 'app' | 'link';
}

/** One line of an incident's history (GET /api/users/incidents/{id}); `type` is open-ended. */
export interface IncidentTimelineEntry {
  at: string;
  /** 'opened', 'delivery', 'acknowledged', 'resolved', or what escalation records ('escalated', 'reminder', …). */
  type: string;
  step: number | null;
  alert_method_id: number | null;
  platform: AlertPlatform | null;
  detail: string;
  /** Deliveries only. */
  delivery: { delivery_id: number; event: string; status: DeliveryStatus; attempts: number; last_error: string | null; delivered_at: string | null } | null;
  /** 'acknowledged' only. */
  by: IncidentAcker | null;
}

/** POST /api/users/incidents/acknowledge: what each id came to. */
export interface IncidentsAcknowledged {
  acknowledged: number[];
  /** Ids left as they were, with why (not found, resolved, already acknowledged). */
  skipped: Array<{ incident_id: number; reason: string }>;
}

export interface IncidentDetail extends Incident {
  timeline: IncidentTimelineEntry[];
}

/** MTTA and MTTR of one endpoint over a range (GET /api/users/incidents/stats). */
export interface IncidentEndpointStats {
  url_id: number;
  endpoint_name: string | null;
  incidents: number;
  acknowledged: number;
  resolved: number;
  /** Mean seconds from opening to acknowledgement over the acknowledged ones; null without any. */
  mtta_seconds: number | null;
  /** Mean seconds from opening to resolution over the resolved ones; null without any. */
  mttr_seconds: number | null;
}

export interface IncidentStats {
  from: string;
  to: string;
  endpoints: IncidentEndpointStats[];
}

/** One step of an escalation policy: after `wait_minutes` (from the step before, or from the opening) these methods are notified. */
export interface EscalationStep {
  wait_minutes: number;
  alert_method_ids: number[];
}

/** Ordered steps run until the incident is acknowledged or resolved; the last one repeats `repeat` times. */
export interface EscalationPolicy {
  escalation_policy_id: number;
  name: string;
  steps: EscalationStep[];
  /** Times the last step repeats (reminders), 0 to 10. */
  repeat: number;
  repeat_every_minutes: number;
  created_at: string;
}

export const ESCALATION_LIMITS = { maxSteps: 10, maxWaitMinutes: 1440, maxRepeat: 10 } as const;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One message to one alert method (GET /api/users/alert-methods/{id}/deliveries). */
export interface AlertDelivery {
  delivery_id: number;
  incident_id: number | null;
  event: 'opened' | 'resolved' | 'test' | 'reminder' | 'acknowledged';
  status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
}

/** Fields of platform_config that are secrets: masked in GET answers (all but the last 4 characters). */
export const SECRET_FIELDS = ['bot_token', 'webhook_url', 'phone_number', 'routing_key'] as const;
export const MASK_CHAR = '•';

// ---- Status pages ----
export const REPORT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const REPORT_IMPACTS = ['degraded', 'partial_outage', 'major_outage'] as const;
export type ReportImpact = (typeof REPORT_IMPACTS)[number];
/** A component's or page's state, best first (the worst wins). */
export const COMPONENT_STATES = ['operational', 'maintenance', 'degraded', 'partial_outage', 'major_outage'] as const;
export type ComponentState = (typeof COMPONENT_STATES)[number];
export type MaintenanceState = 'scheduled' | 'in_progress' | 'completed';

export interface StatusComponent {
  component_id: number;
  name: string;
  endpoint_id: number | null;
  group: string | null;
  position: number;
}

/** POST /api/users/status-pages/{id}/verify-domain: whether the proving TXT record was found. */
export interface DomainVerification {
  found: boolean;
  custom_domain: string;
  custom_domain_verified: boolean;
  record_name: string;
  record_value: string;
}

export interface StatusPage {
  id: number;
  slug: string;
  title: string;
  description: string;
  published: boolean;
  has_password: boolean;
  /** The custom domain the owner set; served only once `custom_domain_verified`. */
  custom_domain: string | null;
  /** The TXT record `_upfleet-challenge.{custom_domain}` with this value was found (checked again daily). */
  custom_domain_verified: boolean;
  /** The value of the TXT record that proves the custom domain. */
  custom_domain_token: string;
  timezone: string;
  auto_reports: boolean;
  components: StatusComponent[];
  created_at: string;
  updated_at: string;
}

export interface StatusReportUpdate {
  update_id: number;
  status: ReportStatus;
  message: string;
  created_at: string;
}

export interface StatusReport {
  report_id: number;
  page_id: number;
  title: string;
  status: ReportStatus;
  affected: Array<{ component_id: number; impact: ReportImpact }>;
  /** Newest first. */
  updates: StatusReportUpdate[];
  created_at: string;
  resolved_at: string | null;
  /** The alerting incident an auto report follows, else null. */
  incident_id: number | null;
}

export interface MaintenanceWindow {
  id: number;
  title: string;
  message: string;
  endpoint_ids: number[];
  starts_at: string;
  ends_at: string;
  state: MaintenanceState;
}

export interface PublicStatusDay {
  date: string;
  /** Percent with two decimals; null: no results that day ("no data", not 100 %). */
  uptime: number | null;
  /** Reports open that day on this component. */
  reports: Array<{ report_id: number; title: string }>;
}

export interface PublicStatusComponent {
  id: number;
  name: string;
  group: string | null;
  status: ComponentState;
  uptime_90d: number | null;
  days: PublicStatusDay[];
}

export interface PublicStatus {
  page: { slug: string; title: string; description: string; timezone: string };
  overall: ComponentState;
  components: PublicStatusComponent[];
  /** Open reports first, then the last 90 days' resolved ones (newest first). */
  reports: Array<Omit<StatusReport, 'page_id' | 'incident_id'>>;
  /** In progress and upcoming, limited to this page's endpoints. */
  maintenance: Array<Omit<MaintenanceWindow, 'endpoint_ids'> & { components: number[] }>;
  /**
   * Ongoing outages the monitoring found that no open report covers (one began before the page or
   * its component existed, or the page makes no reports): the banner's state is always explained.
   */
  detected: Array<{ component_ids: number[]; impact: 'major_outage' | 'degraded'; title: string; since: string }>;
  generated_at: string;
}

/** GET /api/users/endpoints/:id/slo: the endpoint's uptime over its SLO window and its error budget. */
export interface SloStatus {
  url_id: number;
  /** Absent target: null (the budget and burn rates are then null too). */
  slo_target: number | null;
  slo_window_days: number;
  /** The window measured: [from, to). */
  from: string;
  to: string;
  /** Percent with two decimals over the window; null: no data. */
  uptime_percentage: number | null;
  /** Minutes of downtime the target allows over the window, those used so far, and what is left (negative: overspent). */
  error_budget: { allowed_minutes: number; used_minutes: number; remaining_minutes: number } | null;
  /** Failure share over the last hour / 24 hours divided by the share the target allows (1: spends the budget exactly over the window). */
  burn_rate_1h: number | null;
  burn_rate_24h: number | null;
  /** When the budget runs out at the last 24 hours' rate; null when not burning (or no target). */
  budget_exhausted_at: string | null;
  /** Remaining budget at the end of each day of the window (the graphs' burn-down): [ms, minutes]. */
  burn_down: Array<[number, number]>;
}

/** The SLA figures of one report row (or the totals). */
export interface SlaFigures {
  /** Checks counted (outside maintenance). */
  checks: number;
  /** Percent with two decimals; null: no results ("no data", never 100 %). */
  uptime_percentage: number | null;
  /** The failed share of the minutes measured (outside maintenance, from the endpoint's creation on); null: no data. */
  downtime_minutes: number | null;
  /** Outage incidents ('down') opened in the period. */
  incidents: number;
  longest_outage_minutes: number | null;
  /** Mean time to resolve, of the period's resolved outages. */
  mttr_minutes: number | null;
  /** Mean time to acknowledge, of the period's acknowledged outages. */
  mtta_minutes: number | null;
}

export type SlaGroupBy = 'endpoint' | 'region' | 'month';

export interface SlaRow extends SlaFigures {
  url_id: number;
  name: string;
  /** group_by=region: the region ('EU-Germany'); otherwise null. */
  region: string | null;
  /** group_by=month: the month ('2026-03') in the report's time zone; otherwise null. */
  month: string | null;
}

/** GET /api/users/reports/sla */
export interface SlaReport {
  from: string;
  to: string;
  /** The zone months and dates are cut in (the caller's profile). */
  timezone: string;
  group_by: SlaGroupBy;
  /** Set when `from` lay before the plan's retention: the report starts at the oldest kept result instead. */
  retention: { days: number; clamped: boolean; requested_from: string };
  rows: SlaRow[];
  totals: SlaFigures;
  /** The maintenance windows left out of the figures. */
  maintenance: Array<{ id: number; title: string; endpoint_ids: number[]; starts_at: string; ends_at: string }>;
}

/** GET/PUT /api/users/reports/schedule: the workspace's monthly SLA report by mail. */
export interface ReportSchedule {
  enabled: boolean;
  recipients: string[];
  /** The workspace owner's zone: the report for a month goes out on the 1st of the next, there. */
  timezone: string;
  next_send_at: string | null;
}

/** GET /api/admin/cluster (`upfleet cluster status`): the control-plane processes and the leader lease. */
export interface ClusterProcess {
  id: string;
  host: string;
  pid: number;
  version: string;
  started_at: string;
  last_seen: string;
  /** Holds the leader lease now (runs the once-only work). */
  leader: boolean;
  /** The process that answered this request. */
  this_process: boolean;
}

export interface ClusterStatus {
  /** Where the lease and the process list live: 'sqlite' (one process) or 'postgres' (DATABASE_URL). */
  database: 'sqlite' | 'postgres';
  /** The lease while someone holds it (not lapsed), else null. */
  lease: { holder: string; epoch: number; since: string; expires_at: string } | null;
  processes: ClusterProcess[];
}
