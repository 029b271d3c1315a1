// Endpoint bodies. Plan rules (features, region count, endpoint count) are policy: the service checks them after parsing.
import { z } from 'zod';
import { isTimeZone } from '../time-zone';
import { ENDPOINT_STATUSES, FEATURES, type EndpointCheck, type EndpointStatus, type Feature } from '../rest';
import {
  ASSERTION_COMPARISONS, ASSERTION_SOURCES, DNS_RECORD_TYPES, FORBIDDEN_HEADERS, HTTP_METHODS, LIMITS_CHECK, LIMITS_HEARTBEAT,
  assertionProblem, type EndpointKind,
} from '../assertions';
import { flag, optionalText, requiredText } from './common';
import { ENDPOINT_SORTS, parseSort } from '../endpoint-list';
import { isDnsName, parseHostPort, parseResolver } from '../target-syntax';
import { ENDPOINT_KIND_TABLE, endpointKindSpec } from '../check-kinds';
import { BROWSER_ACTIONS, LIMITS_BROWSER, normaliseStep, stepProblem, type BrowserStep } from '../browser-steps';

/** A monitor target: an absolute http(s) URL without credentials, normalised by the URL parser. */
export const MonitorUrl = requiredText('URL', 2048).transform((raw, ctx) => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'Please enter a valid URL' });
    return z.NEVER;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: 'URL must start with http:// or https://' });
  } else if (!u.hostname) {
    ctx.addIssue({ code: 'custom', message: 'Please enter a valid URL' });
  } else if (u.username || u.password) {
    ctx.addIssue({ code: 'custom', message: 'URL must not contain a username or password' });
  }
  return u.toString();
});

/** Region keys such as `EU-Germany`, de-duplicated; absent or null means "the primary region". */
const regionsError = 'Regions must be a list of region names';
export const RegionKeys = z
  .array(z.string({ error: regionsError }), { error: regionsError })
  .nullish()
  .transform((v) => [...new Set(v ?? [])]);

const featureFlags = Object.fromEntries(FEATURES.map((f) => [f, flag(f, f === 'response_code')])) as Record<
  Feature,
  ReturnType<typeof flag>
>;

// ---- check kinds beyond GET: request options, assertions, tcp and dns targets ----

const oneOf = (field: string, list: readonly string[]) => `${field} must be one of ${list.join(', ')}`;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;

export const HttpHeaderSpec = z.object({
  name: z.string({ error: 'Header name is required' }).trim().regex(HEADER_NAME, 'Header name must be a token such as X-Api-Key')
    .refine((n) => !FORBIDDEN_HEADERS.includes(n.toLowerCase()), { message: 'This header is set by the agent' }),
  /** Absent on a secret header: keep the stored value (secret values are write-only). */
  value: z.string({ error: 'Header value must be text' }).max(LIMITS_CHECK.headerValue, `Header value must be at most ${LIMITS_CHECK.headerValue} characters long`)
    .refine((v) => !/[\r\n\0]/.test(v), { message: 'Header value must be one line' }).optional(),
  secret: z.boolean({ error: 'secret must be true or false' }).optional(),
});

export const HttpRequestSpec = z.object({
  method: z.enum(HTTP_METHODS, { error: oneOf('method', HTTP_METHODS) }).default('GET'),
  headers: z.array(HttpHeaderSpec, { error: 'headers must be a list' }).max(LIMITS_CHECK.headers, `At most ${LIMITS_CHECK.headers} headers`).default([]),
  body: z.string({ error: 'Request body must be text' }).refine((b) => utf8Bytes(b) <= LIMITS_CHECK.requestBodyBytes, { message: 'Request body must be at most 64 kB' }).default(''),
  follow_redirects: z.boolean({ error: 'follow_redirects must be true or false' }).default(true),
  timeout_seconds: z.number({ error: 'timeout_seconds must be a whole number from 1 to 60' }).int('timeout_seconds must be a whole number from 1 to 60')
    .min(LIMITS_CHECK.timeoutSecondsMin, 'timeout_seconds must be a whole number from 1 to 60').max(LIMITS_CHECK.timeoutSecondsMax, 'timeout_seconds must be a whole number from 1 to 60').optional(),
});
export type HttpRequestSpec = z.infer<typeof HttpRequestSpec>;

export const AssertionSpec = z.object({
  source: z.enum(ASSERTION_SOURCES, { error: oneOf('source', ASSERTION_SOURCES) }),
  property: z.string({ error: 'property must be text' }).trim().max(200, 'property must be at most 200 characters long').default(''),
  comparison: z.enum(ASSERTION_COMPARISONS, { error: oneOf('comparison', ASSERTION_COMPARISONS) }),
  target: z.union([z.string(), z.number()], { error: 'target must be text or a number' }).transform(String)
    .refine((t) => t.length <= LIMITS_CHECK.assertionTarget, { message: `target must be at most ${LIMITS_CHECK.assertionTarget} characters long` }),
});

// The target syntax (host:port, DNS names, resolvers) lives in target-syntax.ts, without zod: the
// agent's probers parse with it and the agent executable does not carry zod.
export { isDnsName, parseHostPort, parseResolver };

const PERIOD_ERROR = 'period_seconds must be a whole number from 60 to 2678400 (31 days)';
const GRACE_ERROR = 'grace_seconds must be a whole number from 0 to 2678400 (31 days)';
/** A heartbeat cron's zone: the one rule of proto/time-zone.ts (IANA names, 'UTC+2' aliases). */
export { isTimeZone };
/** A heartbeat's grace when none is given. */
export const DEFAULT_GRACE_SECONDS = 300;


/** The kinds an endpoint can be created with: every entry of the kinds table. */
const CREATABLE = Object.keys(ENDPOINT_KIND_TABLE) as [EndpointKind, ...EndpointKind[]];

const POLICY_ERROR = 'escalation_policy_id must be the id of one of your escalation policies, or null';
const DEPENDS_ERROR = 'depends_on must be the url_id of another of your endpoints, or null';
const INTERVAL_ERROR = 'check_frequency_seconds must be a whole number of seconds from 1 to 86400';
const BROWSER_TIMEOUT_ERROR = `timeout_seconds must be a whole number from 1 to ${LIMITS_BROWSER.timeoutSecondsMax}`;

/** A browser check's steps: each is checked by stepProblem (browser-steps.ts), which names the step in its 400. */
export const BrowserSteps = z.array(z.unknown(), { error: 'steps must be a list' })
  .max(LIMITS_BROWSER.steps, `At most ${LIMITS_BROWSER.steps} steps`)
  .transform((v) => v as BrowserStep[])
  .meta({ description: `browser: at most ${LIMITS_BROWSER.steps} steps, each { action, … }; action one of ${BROWSER_ACTIONS.join(', ')}. A fill may be secret: its value is write-only (send it without value to keep the stored one)` });
const SLO_TARGET_ERROR = 'slo_target must be a percentage above 0 and below 100, such as 99.9';
/** The windows an SLO is measured over, in days. */
export const SLO_WINDOW_DAYS = [7, 28, 30, 90] as const;
export const DEFAULT_SLO_WINDOW_DAYS = 30;
const SLO_WINDOW_ERROR = `slo_window_days must be one of ${SLO_WINDOW_DAYS.join(', ')}`;

/** The fields of an endpoint body; EndpointCreateBody adds the rules between them. */
export const EndpointFields = z.object({
  name: requiredText('Name', 200),
  /** Absent: http (what every endpoint made before other kinds existed is). */
  kind: z.enum(CREATABLE, { error: oneOf('kind', CREATABLE) }).optional(),
  /** http: the URL checked (required). */
  url: MonitorUrl.optional(),
  /** tcp: `host:port`; dns: the name looked up. */
  target: z.string({ error: 'Target must be text' }).trim().max(260, 'Target must be at most 260 characters long').optional(),
  record_type: z.enum(DNS_RECORD_TYPES, { error: oneOf('record_type', DNS_RECORD_TYPES) }).optional(),
  resolver: z.string({ error: 'Resolver must be text' }).trim().max(60, 'Resolver must be an IP address, optionally with :port').optional(),
  request: HttpRequestSpec.optional(),
  assertions: z.array(AssertionSpec, { error: 'assertions must be a list' }).max(LIMITS_CHECK.assertions, `At most ${LIMITS_CHECK.assertions} assertions`).optional(),
  /** browser: the steps after loading url, and the whole run's timeout (default 30 s). */
  steps: BrowserSteps.optional(),
  timeout_seconds: z.number({ error: BROWSER_TIMEOUT_ERROR }).int(BROWSER_TIMEOUT_ERROR).min(1, BROWSER_TIMEOUT_ERROR).max(LIMITS_BROWSER.timeoutSecondsMax, BROWSER_TIMEOUT_ERROR).optional(),
  /** heartbeat: a period (60 s to 31 days) or a five-field cron with its timezone, and a grace. */
  period_seconds: z.number({ error: PERIOD_ERROR }).int(PERIOD_ERROR).min(LIMITS_HEARTBEAT.periodSecondsMin, PERIOD_ERROR).max(LIMITS_HEARTBEAT.periodSecondsMax, PERIOD_ERROR).optional(),
  cron: z.string({ error: 'cron must be text' }).trim().max(200, 'cron must be at most 200 characters long')
    .refine((c) => c.split(/\s+/).length === 5, { message: 'cron must have five fields: minute hour day-of-month month day-of-week' }).optional(),
  timezone: z.string({ error: 'timezone must be text' }).trim().max(64, 'timezone must be an IANA time zone such as Europe/Berlin')
    .refine(isTimeZone, { message: 'timezone must be an IANA time zone such as Europe/Berlin' }).optional(),
  grace_seconds: z.number({ error: GRACE_ERROR }).int(GRACE_ERROR).min(0, GRACE_ERROR).max(LIMITS_HEARTBEAT.graceSecondsMax, GRACE_ERROR).optional(),
  description: optionalText('Description', 1000),
  /** The endpoint's own check interval; absent or null: the plan's (never shorter than the plan's). */
  check_frequency_seconds: z.number({ error: INTERVAL_ERROR }).int(INTERVAL_ERROR).min(1, INTERVAL_ERROR).max(86_400, INTERVAL_ERROR).nullish(),
  /** Absent on an update: kept; null: none (every enabled alert method at once). */
  escalation_policy_id: z.number({ error: POLICY_ERROR }).int(POLICY_ERROR).positive(POLICY_ERROR).nullish(),
  /** Absent on an update: kept; null: depends on nothing. */
  depends_on: z.number({ error: DEPENDS_ERROR }).int(DEPENDS_ERROR).positive(DEPENDS_ERROR).nullish(),
  /** The uptime promised, in percent (99.9); null: none. Absent on an update: the stored one stays. */
  slo_target: z.number({ error: SLO_TARGET_ERROR }).gt(0, SLO_TARGET_ERROR).lt(100, SLO_TARGET_ERROR).nullish(),
  /** The days the SLO is measured over; absent: 30 on a create, the stored one on an update. */
  slo_window_days: z.number({ error: SLO_WINDOW_ERROR }).refine((d) => (SLO_WINDOW_DAYS as readonly number[]).includes(d), SLO_WINDOW_ERROR).optional(),
  ...featureFlags,
  regions: RegionKeys,
});

type CheckFields = Pick<z.infer<typeof EndpointFields>, 'kind' | 'url' | 'target' | 'record_type' | 'resolver' | 'request' | 'assertions'
  | 'period_seconds' | 'cron' | 'timezone' | 'grace_seconds'> & { steps?: BrowserStep[]; timeout_seconds?: number };

/** A heartbeat has no target: it needs a period or a cron (not both) and refuses the other kinds' fields. */
function heartbeatRules(b: CheckFields, issue: (message: string, path: string) => void): void {
  if (b.url !== undefined || b.target !== undefined || b.record_type !== undefined || b.resolver !== undefined || b.request !== undefined) {
    issue('A heartbeat has no target: it is pinged at its ping URL', 'url');
  }
  if ((b.assertions?.length ?? 0) > 0) issue('A heartbeat has no assertions', 'assertions');
  if (b.period_seconds === undefined && b.cron === undefined) issue('A heartbeat needs period_seconds or cron', 'period_seconds');
  if (b.period_seconds !== undefined && b.cron !== undefined) issue('Give either period_seconds or cron, not both', 'cron');
  if (b.timezone !== undefined && b.cron === undefined) issue('timezone goes with cron', 'timezone');
}

/** The rules between a body's check fields (what each kind needs and refuses); also the monitors file's. */
export function checkKindRules(b: CheckFields, ctx: z.core.$RefinementCtx): void {
  const kind = b.kind ?? 'http';
  const issue = (message: string, path: string) => ctx.addIssue({ code: 'custom', message, path: [path] });
  if (kind !== 'browser' && (b.steps !== undefined || b.timeout_seconds !== undefined)) issue('steps and timeout_seconds are for browser checks', 'steps');
  if (kind === 'heartbeat') return heartbeatRules(b, issue);
  if (b.period_seconds !== undefined || b.cron !== undefined || b.timezone !== undefined || b.grace_seconds !== undefined) {
    issue('period_seconds, cron, timezone and grace_seconds are for heartbeats', 'period_seconds');
  }
  if (kind === 'browser') {
    if (b.url === undefined) issue('URL is required', 'url');
    if (b.target !== undefined || b.record_type !== undefined || b.resolver !== undefined) issue('target, record_type and resolver are for tcp and dns checks', 'target');
    if (b.request !== undefined) issue('request is for http checks', 'request');
    // A secret fill without a value is allowed here; the service checks one is stored for its selector.
    for (const [i, step] of (b.steps ?? []).entries()) {
      const problem = stepProblem(step, i, () => true);
      if (problem) return issue(problem[0].toUpperCase() + problem.slice(1), 'steps');
    }
  } else if (kind === 'http') {
    if (b.url === undefined) issue('URL is required', 'url');
    if (b.target !== undefined || b.record_type !== undefined || b.resolver !== undefined) issue('target, record_type and resolver are for tcp and dns checks', 'target');
  } else {
    if (b.request !== undefined) issue('request is for http checks', 'request');
    const target = endpointKindSpec(kind).target;
    if (target.field !== 'target') return;
    if (!b.target) return issue(target.required, 'target');
    for (const p of target.problems(b)) issue(p.message, p.path);
  }
  const assertions = endpointKindSpec(kind).assertions;
  for (const a of b.assertions ?? []) {
    const problem = assertionProblem(a, assertions === 'answer' ? 'answer' : 'http');
    if (problem) return issue(problem, 'assertions');
  }
  if (typeof assertions === 'object' && (b.assertions?.length ?? 0) > 0) issue(assertions.refused, 'assertions');
}

/** What a parsed body's check is, normalised as stored, and the URL it is stored under (tcp://host:port, dns://[resolver/]name/TYPE). */
export function endpointCheck(b: CheckFields): { url: string; check: EndpointCheck & { kind: EndpointKind } } {
  const kind = b.kind ?? 'http';
  if (kind === 'heartbeat') {
    const schedule = b.cron !== undefined ? { cron: b.cron.split(/\s+/).join(' '), timezone: b.timezone ?? 'UTC' } : { period_seconds: b.period_seconds! };
    // The stored URL is made unique by the service (heartbeat://<uuid>): a heartbeat has no target.
    return { url: 'heartbeat://', check: { kind, ...schedule, grace_seconds: b.grace_seconds ?? DEFAULT_GRACE_SECONDS } };
  }
  const target = endpointKindSpec(kind).target;
  if (target.field === 'target') {
    const stored = target.stored(b);
    return { url: stored.url, check: { ...stored.check, kind } };
  }
  if (kind === 'browser') {
    const steps = (b.steps ?? []).map(normaliseStep);
    return { url: b.url!, check: { kind, steps, timeout_seconds: b.timeout_seconds ?? LIMITS_BROWSER.timeoutSecondsDefault } };
  }
  const check: EndpointCheck & { kind: EndpointKind } = { kind: 'http' };
  if (b.request) {
    const { timeout_seconds, ...rest } = b.request;
    check.request = { ...rest, ...(timeout_seconds !== undefined ? { timeout_seconds } : {}) };
  }
  if (b.assertions?.length) check.assertions = b.assertions;
  return { url: b.url!, check };
}

export const EndpointCreateBody = EndpointFields.superRefine(checkKindRules).meta({ id: 'EndpointCreateBody', description: 'POST /api/users/endpoints (response_code defaults to true, the other features to false; kind defaults to http)' });
export type EndpointCreateBody = z.infer<typeof EndpointCreateBody>;

/** PUT replaces the whole endpoint, so it takes the same body as create. */
export const EndpointUpdateBody = EndpointCreateBody.meta({ id: 'EndpointUpdateBody', description: 'PUT /api/users/endpoints/:id' });
export type EndpointUpdateBody = z.infer<typeof EndpointUpdateBody>;

export const EndpointToggleBody = z
  .object({ monitoring_enabled: z.boolean({ error: 'monitoring_enabled must be true or false' }).optional() })
  .meta({ id: 'EndpointToggleBody', description: 'PATCH /api/users/endpoints/:id/toggle (absent: flip the current state)' });
export type EndpointToggleBody = z.infer<typeof EndpointToggleBody>;

/** Largest page of the endpoint list. */
export const ENDPOINT_PAGE_MAX = 1000;
const pageNumber = (name: string, min: number, max: number) => {
  const error = `${name} must be a whole number from ${min} to ${max}`;
  return z
    .string({ error })
    .regex(/^\d{1,9}$/, error)
    .transform(Number)
    .refine((n) => n >= min && n <= max, error)
    .optional();
};

const sortError = `sort must be one of ${ENDPOINT_SORTS.join(', ')}, with - in front for descending`;
const statusError = `status must be one or more of ${ENDPOINT_STATUSES.join(', ')}, separated by commas`;

export const EndpointListQuery = z
  .object({
    limit: pageNumber('limit', 1, ENDPOINT_PAGE_MAX),
    offset: pageNumber('offset', 0, 100_000_000),
    q: z.string({ error: 'q must be text' }).max(2048, 'q must be at most 2048 characters').optional()
      .meta({ description: 'Name or URL contains this text (case-insensitive)' }),
    status: z
      .string({ error: statusError })
      .transform((s) => s.split(',').map((x) => x.trim()))
      .refine((list) => list.every((x) => (ENDPOINT_STATUSES as readonly string[]).includes(x)), statusError)
      .transform((list) => [...new Set(list)] as EndpointStatus[])
      .optional()
      .meta({ description: `One or more of ${ENDPOINT_STATUSES.join(', ')}, comma separated` }),
    sort: z
      .string({ error: sortError })
      .refine((s) => parseSort(s) !== null, sortError)
      .transform((s) => parseSort(s)!)
      .optional()
      .meta({ description: `${ENDPOINT_SORTS.join(' | ')}; - in front for descending. status puts down first; without sort, a search or status filter answers down first (status), the plain list and its pages oldest endpoint first (as before)` }),
  })
  .meta({
    id: 'EndpointListQuery',
    description: `GET /api/users/endpoints-with-uptime: optional search (q), status filter and sort, and paging (a search or filter: down first unless sorted; the plain list: oldest endpoint first unless sorted). Without limit and offset the whole list is answered; with either, one page (limit defaults to ${ENDPOINT_PAGE_MAX}) and the X-Total-Count header gives the number of endpoints`,
  });
export type EndpointListQuery = z.infer<typeof EndpointListQuery>;
