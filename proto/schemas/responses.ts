// What the REST API answers (the `data` of `{ success: true, data }`), as zod schemas: the OpenAPI
// document (GET /api/openapi.json) is generated from them and from the request schemas beside them.
// Each one is checked against its TypeScript type in proto/rest.ts below, so the two cannot drift.
import { z } from 'zod';
import {
  ALERT_PLATFORMS,
  BROWSER_TIMINGS,
  type ScreenshotInfo,
  ENDPOINT_STATUSES,
  FEATURES,
  INCIDENT_STATES,
  THRESHOLD_OPERATORS,
  type AlertDelivery,
  type AlertMethod,
  type AlertThreshold,
  type CheckoutSession,
  type ApiKey,
  type CreatedApiKey,
  type Dashboard,
  type Endpoint,
  type GraphsResponse,
  type Incident,
  type EscalationPolicy,
  type MonitorType,
  type Package,
  type Region,
} from '../rest';
import { ASSERTION_COMPARISONS, ASSERTION_SOURCES, DNS_RECORD_TYPES, ENDPOINT_KINDS, HTTP_METHODS } from '../assertions';

const featureFlags = Object.fromEntries(FEATURES.map((f) => [f, z.boolean()])) as Record<(typeof FEATURES)[number], z.ZodBoolean>;
const timestamp = z.string().meta({ description: 'ISO 8601 date-time (UTC)' });

export const PackageResource = z
  .object({
    package_id: z.number().int(),
    package_name: z.string(),
    price: z.number(),
    currency: z.enum(['EUR', 'USD', 'GBP', 'JPY']),
    description: z.string(),
    max_endpoints: z.number().int(),
    max_regions: z.number().int(),
    max_members: z.number().int(),
    check_frequency_seconds: z.number().int(),
    retention_days: z.number().int(),
    ssl_monitoring: z.boolean(),
    advanced_alerts: z.boolean(),
    api_access: z.boolean(),
    multi_region: z.boolean(),
    ...featureFlags,
    stripe_price_id: z.string(),
    max_status_pages: z.number().int(),
    browser_checks: z.number().int().meta({ description: 'Browser endpoints an account may have' }),
    custom_domains: z.boolean().meta({ description: 'Status pages may serve a custom domain' }),
    monitor_kinds: z.array(z.enum(ENDPOINT_KINDS)).meta({ description: 'Endpoint kinds the plan allows' }),
  })
  .meta({ id: 'Package' });

export const RegionResource = z
  .object({ region_id: z.number().int(), region: z.string(), city: z.string(), primary_region: z.boolean() })
  .meta({ id: 'Region', description: 'A monitoring region; endpoints name it as `region-city`, e.g. EU-Germany' });

export const RecentCheckResource = z
  .object({
    at: z.number().int().meta({ description: 'When the check ran (epoch ms)' }),
    ok: z.boolean(),
    ms: z.number().nullable(),
    code: z.number().int().nullable(),
  })
  .meta({ id: 'RecentCheck' });

export const EndpointResource = z
  .object({
    url_id: z.number().int(),
    guid: z.string(),
    name: z.string(),
    url: z.string(),
    description: z.string(),
    regions: z.array(z.string()),
    ...featureFlags,
    kind: z.enum(ENDPOINT_KINDS).meta({ description: 'http, tcp, dns or heartbeat' }),
    check_frequency_seconds: z.number().int().optional().meta({ description: "The endpoint's own check interval in seconds (absent: the plan's)" }),
    escalation_policy_id: z.number().int().nullable().optional().meta({ description: 'The escalation policy its incidents follow; null: every enabled alert method at once' }),
    depends_on: z.number().int().nullable().optional().meta({ description: 'The endpoint this one depends on: while that one is down, incidents of this one are suppressed (send nothing)' }),
    slo_target: z.number().optional().meta({ description: 'The uptime promised in percent, such as 99.9 (absent: no SLO)' }),
    slo_window_days: z.number().int().optional().meta({ description: 'The days the SLO is measured over: 7, 28, 30 or 90' }),
    target: z.string().optional().meta({ description: 'tcp: host:port; dns: the name looked up' }),
    record_type: z.enum(DNS_RECORD_TYPES).optional(),
    resolver: z.string().optional().meta({ description: "dns: the server asked (ip or ip:port); absent: the agent's system resolver" }),
    request: z
      .object({
        method: z.enum(HTTP_METHODS),
        headers: z.array(z.object({ name: z.string(), value: z.string().optional().meta({ description: 'absent when secret (write-only)' }), secret: z.boolean().optional() })),
        body: z.string(),
        follow_redirects: z.boolean(),
        timeout_seconds: z.number().int().optional(),
      })
      .optional(),
    assertions: z
      .array(z.object({ source: z.enum(ASSERTION_SOURCES), property: z.string(), comparison: z.enum(ASSERTION_COMPARISONS), target: z.string() }))
      .optional(),
    period_seconds: z.number().int().optional().meta({ description: 'heartbeat: a ping is expected this often (60 s to 31 days)' }),
    cron: z.string().optional().meta({ description: 'heartbeat: a ping is expected at each run of this five-field cron' }),
    timezone: z.string().optional().meta({ description: "heartbeat: the cron's IANA time zone" }),
    grace_seconds: z.number().int().optional().meta({ description: 'heartbeat: how long after the expected time it goes down' }),
    ping_url: z.string().optional().meta({ description: 'heartbeat: {PUBLIC_URL}/ping/{token}; GET/HEAD/POST a success, /start a job start, /fail or /{exit_code} (1-255) a failure' }),
    heartbeat_state: z.enum(['new', 'up', 'late', 'down', 'paused']).optional().meta({ description: 'heartbeat: new until the first ping, late past the expected time, down past the grace or on a failure ping' }),
    monitoring_enabled: z.boolean(),
    uptime_percentage: z.number().nullable().meta({ description: '7-day uptime in percent; null without data' }),
    created_at: timestamp,
    status: z.enum(ENDPOINT_STATUSES).meta({ description: 'pending before the first result; paused when monitoring is off; degraded when some regions fail; maintenance while a maintenance window is in progress' }),
    last_checked_at: timestamp.nullable().meta({ description: 'When the last check ran; null before the first' }),
    last_response_ms: z.number().nullable().meta({ description: 'Response time of the last check in ms' }),
    last_status_code: z.number().int().nullable().meta({ description: 'HTTP status of the last check; null without a response' }),
    last_error: z.string().nullable().meta({ description: 'Readable reason of the last failure; null when up' }),
    recent: z.array(RecentCheckResource).meta({ description: 'The last 30 checks, oldest first' }),
  })
  .meta({ id: 'Endpoint' });

/** Create, update and the single-endpoint answers carry no uptime and no live state. */
export const EndpointSavedResource = EndpointResource.omit({
  uptime_percentage: true, status: true, last_checked_at: true, last_response_ms: true, last_status_code: true, last_error: true, recent: true,
}).meta({ id: 'EndpointSaved' });

/** One entry of a heartbeat's ping log (GET /api/users/endpoints/:id/pings, the last 100, newest first). */
export const PingLogResource = z
  .object({
    at: timestamp,
    kind: z.enum(['success', 'start', 'fail']),
    source: z.string().meta({ description: 'The address the ping came from' }),
    body: z.string().meta({ description: 'The first 1,000 characters of the ping body' }),
    run_ms: z.number().int().nullable().meta({ description: 'Run time since the job\'s /start ping; null without one' }),
  })
  .meta({ id: 'PingLogEntry' });

export const EndpointToggleResult = z
  .object({ url_id: z.number().int(), monitoring_enabled: z.boolean() })
  .meta({ id: 'EndpointToggleResult' });

export const EndpointDeleted = z.object({ url_id: z.number().int() }).meta({ id: 'EndpointDeleted' });

export const DashboardResource = z
  .object({
    active_monitoring: z.number().int(),
    total_endpoints: z.number().int(),
    regions_count: z.number().int(),
    package_name: z.string(),
    max_regions: z.number().int(),
    max_endpoints: z.number().int(),
    multi_region: z.boolean(),
    ...featureFlags,
    status_counts: z.object({
      ...(Object.fromEntries(ENDPOINT_STATUSES.filter((k) => k !== 'maintenance').map((k) => [k, z.number().int()])) as Record<Exclude<(typeof ENDPOINT_STATUSES)[number], 'maintenance'>, z.ZodNumber>),
      maintenance: z.number().int().optional().meta({ description: 'Present while some endpoint is in a maintenance window' }),
    })
      .meta({ description: 'Endpoints per status (the summary on the dashboard)' }),
    monitor_kinds: z.array(z.enum(ENDPOINT_KINDS)).optional().meta({ description: 'Endpoint kinds the plan allows' }),
    check_frequency_seconds: z.number().int().optional().meta({ description: "The plan's shortest check interval in seconds" }),
  })
  .meta({ id: 'Dashboard' });

export const MonitorTypeResource = z
  .object({ monitor_type_id: z.number().int(), type_code: z.enum(FEATURES), display_name: z.string(), requires_primary_region: z.boolean() })
  .meta({ id: 'MonitorType' });

export const AlertThresholdResource = z
  .object({
    threshold_id: z.number().int().meta({ description: '0 for a default the user has not saved yet' }),
    monitor_type_id: z.number().int(),
    threshold_value: z.number(),
    threshold_operator: z.enum(THRESHOLD_OPERATORS),
    is_enabled: z.boolean(),
    region_id: z.number().int().nullable(),
    monitor_type: z.enum(FEATURES),
    display_name: z.string(),
    region_name: z.string().nullable(),
  })
  .meta({ id: 'AlertThreshold' });

export const AlertMethodResource = z
  .object({
    alert_method_id: z.number().int(),
    platform: z.enum(ALERT_PLATFORMS),
    is_enabled: z.boolean(),
    platform_config: z.record(z.string(), z.string()),
  })
  .meta({ id: 'AlertMethod' });

/** A new webhook method's answer also carries its signing secret (shown again on request). */
export const AlertMethodCreatedResource = AlertMethodResource.extend({
  signing_secret: z.string().optional().meta({ description: 'webhook only: the key of the X-Upfleet-Signature HMAC' }),
}).meta({ id: 'AlertMethodCreated' });

export const SigningSecretResource = z.object({ signing_secret: z.string() }).meta({ id: 'SigningSecret' });

export const TestSendResult = z.object({ delivered: z.literal(true) }).meta({ id: 'TestSendResult', description: "A refusal by the provider is a 400 with the provider's reason" });

export const AlertDeliveryResource = z
  .object({
    delivery_id: z.number().int(),
    incident_id: z.number().int().nullable(),
    event: z.enum(['opened', 'resolved', 'test', 'reminder', 'acknowledged']),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    created_at: timestamp,
    delivered_at: timestamp.nullable(),
    next_attempt_at: timestamp.nullable(),
  })
  .meta({ id: 'AlertDelivery' });

export const IncidentAckerResource = z
  .object({
    user_id: z.number().int().nullable(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    via: z.enum(['app', 'link']).meta({ description: "'app': a member (or an API key); 'link': a message's acknowledge link" }),
  })
  .meta({ id: 'IncidentAcker' });

export const IncidentResource = z
  .object({
    incident_id: z.number().int(),
    url_id: z.number().int(),
    condition: z.string().meta({ description: "'down', or 'threshold:<monitor type>:<region or any>'" }),
    regions: z.array(z.string()),
    cause: z.string(),
    flapping: z.boolean(),
    opened_at: timestamp,
    resolved_at: timestamp.nullable(),
    state: z.enum(INCIDENT_STATES),
    acknowledged_at: timestamp.nullable(),
    acknowledged_by: IncidentAckerResource.nullable(),
    endpoint_name: z.string().nullable(),
    suppressed_by: z.number().int().nullable().optional().meta({ description: "The parent endpoint's incident that silenced this one (nothing was sent while it lasted)" }),
    group_id: z.number().int().nullable().optional().meta({ description: 'The storm group its first message went out in (one grouped message per method); null: alone' }),
  })
  .meta({ id: 'Incident' });

export const EscalationPolicyResource = z
  .object({
    escalation_policy_id: z.number().int(),
    name: z.string(),
    steps: z.array(z.object({ wait_minutes: z.number().int(), alert_method_ids: z.array(z.number().int()) })),
    repeat: z.number().int(),
    repeat_every_minutes: z.number().int(),
    created_at: timestamp,
  })
  .meta({ id: 'EscalationPolicy' });

export const AlertMethodDeleted = z.object({ alert_method_id: z.number().int() }).meta({ id: 'AlertMethodDeleted' });

const BrowserGraphsResource = z
  .object({
    timings: z.array(z.object({
      timing: z.enum(BROWSER_TIMINGS),
      location: z.string(),
      data: z.array(z.tuple([z.number(), z.number()])).meta({ description: '[millisecond timestamp, average ms] per bucket' }),
    })),
    lastFailure: z.object({
      t: z.number(),
      location: z.string(),
      step: z.number().int().meta({ description: 'the failing step, 1-based (0: the page itself)' }),
      action: z.string(),
      reason: z.string(),
      console_errors: z.array(z.string()),
      failed_requests: z.array(z.string()),
      screenshot_ids: z.array(z.string()),
    }).nullable(),
  })
  .meta({ id: 'BrowserGraphs' });

export const GraphsResource = z
  .object({
    graphs: z.array(
      z.object({
        itemId: z.string(),
        function: z.enum(['response_time', 'response_code', 'ping', 'cert_expiry']),
        location: z.string(),
        data: z.array(z.tuple([z.number(), z.number()])).meta({
          description: '[millisecond timestamp, value] pairs; a response-code bucket with a failed check carries its worst failing status (a 5xx, else 0 for no response, else the highest), else its last status',
        }),
        codes: z
          .array(z.object({
            t: z.number(),
            checks: z.number().int(),
            passed: z.number().int(),
            classes: z.object({ '2xx': z.number().int(), '3xx': z.number().int(), '4xx': z.number().int(), '5xx': z.number().int(), failed: z.number().int() }),
          }))
          .optional()
          .meta({ description: 'Response codes only: per bucket, the checks by status class (failed: no response) and how many passed' }),
        lastCode: z.number().int().optional().meta({ description: 'Response codes only: the latest status in the range' }),
        uptime: z.number().nullable().optional().meta({ description: 'Response codes only: passed checks in percent (two decimals) at this location' }),
      }),
    ),
    from: z.number(),
    to: z.number(),
    bucketSeconds: z.number().int(),
    failures: z
      .array(z.object({ t: z.number(), location: z.string(), reason: z.string() }))
      .optional()
      .meta({ description: 'The latest failed checks in the range (at most 20, newest first) and why: "status_code 503, expected equals 200", "connection refused"' }),
    uptime: z.number().nullable().optional().meta({ description: "The endpoint's uptime over the range in percent (two decimals), the dashboard badge's and status page's rule; null without checks" }),
    browser: BrowserGraphsResource.optional().meta({ description: 'Browser endpoints: page timings per location and the latest failing run in the range' }),
  })
  .meta({ id: 'Graphs' });

export const ScreenshotResource = z
  .object({
    id: z.string().meta({ description: '32 hex digits; GET /api/users/endpoints/{url_id}/screenshots/{shot_id} answers the image' }),
    result_id: z.string(),
    name: z.string().meta({ description: "'failure' for the one taken when a step failed, else the screenshot step's name" }),
    step: z.number().int().meta({ description: 'the step it was taken at (1-based; 0: the page load)' }),
    mime: z.enum(['image/png', 'image/webp']),
    bytes: z.number().int(),
    taken_at: timestamp,
  })
  .meta({ id: 'Screenshot', description: "A browser check's stored screenshot, kept for the plan's retention" });

export const CheckoutSessionResource = z
  .object({
    url: z.string().meta({ description: 'Stripe Checkout (or, for a paying customer, the customer portal): send the browser there' }),
    portal: z.boolean().optional(),
  })
  .meta({ id: 'CheckoutSession' });

export const ApiKeyResource = z
  .object({ id: z.number().int(), name: z.string(), prefix: z.string(), created_at: timestamp, last_used_at: timestamp.nullable() })
  .meta({ id: 'ApiKey', description: 'An API key as listed: never the key itself' });

export const CreatedApiKeyResource = z
  .object({ id: z.number().int(), name: z.string(), key: z.string().meta({ description: 'upk_…; shown only in this answer' }), prefix: z.string(), created_at: timestamp })
  .meta({ id: 'CreatedApiKey' });

// Compile-time: each schema's output is exactly its REST type.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Out<S extends z.ZodType> = z.output<S>;
const sameShapes: [
  Same<Out<typeof PackageResource>, Package>,
  Same<Out<typeof RegionResource>, Region>,
  Same<Out<typeof EndpointResource>, Endpoint>,
  Same<Out<typeof DashboardResource>, Dashboard>,
  Same<Out<typeof MonitorTypeResource>, MonitorType>,
  Same<Out<typeof AlertThresholdResource>, AlertThreshold>,
  Same<Out<typeof AlertMethodResource>, AlertMethod>,
  Same<Out<typeof AlertDeliveryResource>, AlertDelivery>,
  Same<Out<typeof IncidentResource>, Incident>,
  Same<Out<typeof EscalationPolicyResource>, EscalationPolicy>,
  Same<Out<typeof GraphsResource>, GraphsResponse>,
  Same<Out<typeof CheckoutSessionResource>, CheckoutSession>,
  Same<Out<typeof ApiKeyResource>, ApiKey>,
  Same<Out<typeof CreatedApiKeyResource>, CreatedApiKey>,
  Same<Out<typeof ScreenshotResource>, ScreenshotInfo>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];
void sameShapes;
