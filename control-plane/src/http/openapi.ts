// GET /api/openapi.json: the public API as OpenAPI 3.1, generated from the zod schemas the routes
// parse with (bodies and queries, io 'input') and answer with (proto/schemas/responses.ts, io 'output').
// zod 4 emits JSON Schema 2020-12, the dialect OpenAPI 3.1 uses, so the schemas go in as they are.
import { z } from 'zod';
import {
  AlertDeliveryResource, AlertMethodCreatedResource, CheckoutSessionResource, PublicCheckoutSessionBody, EscalationPolicyBody, EscalationPolicyResource, IncidentDetailResource, IncidentResource, IncidentsAcknowledgeBody, IncidentsAcknowledgedResource, IncidentStatsQuery, IncidentStatsResource, IncidentsQuery, SigningSecretResource, TestSendResult,
  AlertMethodCreateBody, AlertMethodDeleted, AlertSettingsBody, AlertSettingsResource, AlertMethodResource, AlertMethodUpdateBody, AlertThresholdResource, AlertThresholdsBody,
  ApiKeyCreateBody, ApiKeyResource, BrowserRunBody, BrowserRunResource, CreatedApiKeyResource, DashboardResource, EndpointCreateBody, EndpointDeleted, EndpointResource,
  EndpointSavedResource, EndpointListQuery, EndpointToggleBody, EndpointToggleResult, EndpointUpdateBody, GraphQuery, GraphsResource, MonitorTypeResource,
  PackageResource, PingLogResource, RegionResource, ResultsExportQuery, RESULT_EXPORT_COLUMNS, BadgeResource,
  SlaReportQuery, SlaReportResource, SloResource, ReportScheduleBody, ReportScheduleResource, ScreenshotResource,
} from '@upfleet/proto/schemas';
import { STATUS_PAGE_ROUTES } from './openapi-status-pages';
import { WORKSPACE_ROUTES } from './openapi-workspaces';

import type { ApiRoute } from './api-route';
export type { ApiRoute } from './api-route';

const list = (s: z.ZodType) => z.array(s);
const deletedKey = z.object({ id: z.number().int() });

/** Every route of the public API: what a key may call, and the session-only key management. */
export const API_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/api/public/packages', summary: 'List the plans', tag: 'Catalogue', access: 'public', data: list(PackageResource) },
  { method: 'get', path: '/api/public/regions', summary: 'List the monitoring regions', tag: 'Catalogue', access: 'public', data: list(RegionResource) },
  { method: 'get', path: '/api/public/billing', summary: 'Whether plans can be bought on this server (without billing the operator sets them)', tag: 'Billing', access: 'public', data: z.object({ enabled: z.boolean(), default_package: z.string().meta({ description: 'The plan a new account starts on (DEFAULT_PACKAGE)' }) }) },
  {
    method: 'get', path: '/api/public/invitations/{token}', summary: 'An invitation as its link shows it (the token is the secret): workspace, inviter, role', tag: 'Catalogue', access: 'public',
    data: z.object({ workspace_name: z.string(), inviter: z.string(), role: z.enum(['admin', 'editor', 'viewer']), email: z.string(), expires_at: z.string() }),
  },
  { method: 'post', path: '/api/public/create-checkout-session', summary: 'Start a plan purchase for a new customer (Stripe Checkout)', tag: 'Billing', access: 'public', body: PublicCheckoutSessionBody, data: CheckoutSessionResource, errors: [503] },
  { method: 'get', path: '/api/users/regions', summary: 'List the monitoring regions', tag: 'Catalogue', access: 'key', data: list(RegionResource) },
  { method: 'get', path: '/api/users/monitor-types', summary: 'List the monitor types (features)', tag: 'Catalogue', access: 'key', data: list(MonitorTypeResource) },
  { method: 'get', path: '/api/users/dashboard', summary: 'Counts and the plan\'s limits', tag: 'Endpoints', access: 'key', data: DashboardResource },
  { method: 'get', path: '/api/users/endpoints-with-uptime', summary: 'List endpoints with 7-day uptime and live state (whole, or searched, filtered, sorted and paged)', tag: 'Endpoints', access: 'key', query: EndpointListQuery, data: list(EndpointResource), headers: ['X-Total-Count'] },
  {
    method: 'get', path: '/api/users/events', summary: 'Live events of your endpoints (Server-Sent Events)', tag: 'Endpoints', access: 'key', data: z.string(),
    stream: 'Server-Sent Events, one `id:` per event. `result`: { url_id, status, last_checked_at, last_response_ms, last_status_code, last_error, recent: { at, ok, ms, code } }; '
      + '`incident.opened` / `incident.resolved`: { url_id, type, occurred_at, incident, endpoint }; `endpoint.changed`: { url_id, deleted }; '
      + '`resync`: the events after your Last-Event-ID are no longer kept (reload the list). A `: heartbeat` comment every 15 s. '
      + 'Send the `Last-Event-ID` header when reconnecting to get the events of the last 5 minutes you missed. At most 20 open streams per person over all workspaces, and 20 per API key; one more closes the oldest.',
  },
  { method: 'post', path: '/api/users/endpoints', summary: 'Create an endpoint', tag: 'Endpoints', access: 'key', body: EndpointCreateBody, data: EndpointSavedResource, created: true, errors: [409], dryRun: true },
  { method: 'get', path: '/api/users/endpoints/{url_id}', summary: 'One endpoint (a heartbeat\'s with its state, and its ping URL for editors and above)', tag: 'Endpoints', access: 'key', data: EndpointSavedResource },
  { method: 'post', path: '/api/users/endpoints/{url_id}/rotate-ping-url', summary: 'A heartbeat\'s new ping URL (editors and above); the old one answers 404 from now on', tag: 'Endpoints', access: 'key', data: EndpointSavedResource, errors: [400] },
  { method: 'get', path: '/api/users/endpoints/{url_id}/pings', summary: 'A heartbeat\'s ping log: its last 100 pings, newest first', tag: 'Endpoints', access: 'key', data: list(PingLogResource), errors: [400] },
  { method: 'post', path: '/api/users/endpoints/browser-run', summary: 'Run a browser check once now, unsaved (editors and above): the result with its screenshots; nothing is stored', tag: 'Endpoints', access: 'key', body: BrowserRunBody, data: BrowserRunResource, errors: [404, 429, 503, 504] },
  { method: 'put', path: '/api/users/endpoints/{url_id}', summary: 'Replace an endpoint', tag: 'Endpoints', access: 'key', body: EndpointUpdateBody, data: EndpointSavedResource, errors: [409], dryRun: true },
  { method: 'delete', path: '/api/users/endpoints/{url_id}', summary: 'Delete an endpoint', tag: 'Endpoints', access: 'key', data: EndpointDeleted },
  { method: 'patch', path: '/api/users/endpoints/{url_id}/toggle', summary: 'Turn monitoring on or off', tag: 'Endpoints', access: 'key', body: EndpointToggleBody, data: EndpointToggleResult },
  { method: 'get', path: '/api/users/endpoints/{url_id}/alert-thresholds', summary: 'An endpoint\'s alert thresholds (saved, then disabled defaults)', tag: 'Alerts', access: 'key', data: list(AlertThresholdResource) },
  { method: 'put', path: '/api/users/endpoints/{url_id}/alert-thresholds', summary: 'Replace an endpoint\'s alert thresholds', tag: 'Alerts', access: 'key', body: AlertThresholdsBody, data: list(AlertThresholdResource) },
  { method: 'get', path: '/api/users/alert-methods', summary: 'List alert methods', tag: 'Alerts', access: 'key', data: list(AlertMethodResource) },
  { method: 'post', path: '/api/users/alert-methods', summary: 'Create an alert method (one per platform)', tag: 'Alerts', access: 'key', body: AlertMethodCreateBody, data: AlertMethodCreatedResource, created: true, errors: [409] },
  { method: 'put', path: '/api/users/alert-methods/{alert_method_id}', summary: 'Update or toggle an alert method', tag: 'Alerts', access: 'key', body: AlertMethodUpdateBody, data: AlertMethodResource },
  { method: 'delete', path: '/api/users/alert-methods/{alert_method_id}', summary: 'Delete an alert method', tag: 'Alerts', access: 'key', data: AlertMethodDeleted },
  { method: 'get', path: '/api/users/alert-methods/{alert_method_id}/signing-secret', summary: 'A webhook method\'s signing secret', tag: 'Alerts', access: 'key', data: SigningSecretResource },
  { method: 'post', path: '/api/users/alert-methods/{alert_method_id}/test', summary: 'Send a test message now', tag: 'Alerts', access: 'key', data: TestSendResult, errors: [400, 503] },
  { method: 'get', path: '/api/users/alert-methods/{alert_method_id}/deliveries', summary: 'Recent deliveries of an alert method', tag: 'Alerts', access: 'key', data: list(AlertDeliveryResource), errors: [503] },
  {
    method: 'get', path: '/api/users/incidents', summary: 'Incidents, newest first, with their state (open, acknowledged, resolved) and who acknowledged (format=csv: the same list as a CSV download)', tag: 'Alerts', access: 'key',
    query: IncidentsQuery.extend({ format: z.enum(['json', 'csv']).optional().meta({ description: 'csv: a text/csv download (Content-Disposition: attachment) instead of JSON' }) }),
    data: list(IncidentResource), errors: [503],
  },
  { method: 'get', path: '/api/users/incidents/stats', summary: 'MTTA and MTTR per endpoint, in seconds, over the incidents opened in a range (default: the last 30 days)', tag: 'Alerts', access: 'key', query: IncidentStatsQuery, data: IncidentStatsResource },
  { method: 'get', path: '/api/users/incidents/{id}', summary: 'An incident with its timeline: opened, each delivery, escalation entries, acknowledged by, resolved', tag: 'Alerts', access: 'key', data: IncidentDetailResource },
  { method: 'post', path: '/api/users/incidents/acknowledge', summary: 'Acknowledge several incidents at once (editors and above): the open ones of the workspace; the others are listed as skipped with why', tag: 'Alerts', access: 'key', body: IncidentsAcknowledgeBody, data: IncidentsAcknowledgedResource },
  { method: 'post', path: '/api/users/incidents/groups/{id}/acknowledge', summary: "Acknowledge a storm group (editors and above): every open incident of it; the others are listed as skipped with why", tag: 'Alerts', access: 'key', data: IncidentsAcknowledgedResource, errors: [404] },
  { method: 'get', path: '/api/users/alert-settings', summary: "The workspace's alert settings: group_threshold, how many incidents opening within 60 s make a storm (grouped messages)", tag: 'Alerts', access: 'key', data: AlertSettingsResource },
  { method: 'put', path: '/api/users/alert-settings', summary: "Change the workspace's alert settings (admins): group_threshold 2–100", tag: 'Alerts', access: 'key', body: AlertSettingsBody, data: AlertSettingsResource },
  { method: 'post', path: '/api/users/incidents/{id}/acknowledge', summary: 'Acknowledge an open incident (editors and above); a resolved or already acknowledged one answers 409', tag: 'Alerts', access: 'key', data: IncidentResource, errors: [409] },
  {
    method: 'get', path: '/api/users/endpoints/{url_id}/results', summary: 'Export an endpoint\'s raw results as a CSV or NDJSON file (streamed)', tag: 'Endpoints', access: 'key',
    query: ResultsExportQuery, data: z.string(), errors: [503],
    media: {
      types: ['text/csv', 'application/x-ndjson'],
      description: `Columns ${RESULT_EXPORT_COLUMNS.join(', ')}; rows per check and region, each in time order. A from older than the plan's retention is clamped `
        + '(X-Export-From and X-Export-To give the range read); CSV per RFC 4180, a text cell starting with = + - @ gets a leading \'. A transfer cut off before its end is a failed export.',
    },
  },
  { method: 'get', path: '/api/users/endpoints/{url_id}/badge', summary: 'The endpoint\'s README badges: SVG URLs (status; uptime over 24h, 7d, 30d, cached 60 s) and Markdown (editors and above)', tag: 'Endpoints', access: 'key', data: BadgeResource, errors: [503] },
  { method: 'post', path: '/api/users/endpoints/{url_id}/badge/rotate', summary: 'A new badge token (editors and above); the old badge URLs answer 404 from now on', tag: 'Endpoints', access: 'key', data: BadgeResource, errors: [503] },
  {
    method: 'get', path: '/api/users/metrics', summary: 'The workspace\'s endpoints as Prometheus metrics (scrape with the key as `authorization: { credentials: … }`)', tag: 'Endpoints', access: 'key',
    data: z.string(), errors: [503],
    media: {
      types: ['text/plain'],
      description: 'Prometheus text exposition 0.0.4: upfleet_check_up, upfleet_check_response_seconds, upfleet_check_status_code and upfleet_certificate_expiry_timestamp_seconds '
        + '(labels endpoint, url_id, region, kind: the last check per endpoint, check kind and region in the last 25 h), upfleet_endpoint_uptime_ratio (window 24h, 7d, 30d; maintenance left out) '
        + 'and upfleet_incident_open (labels endpoint, url_id, kind).',
    },
  },
  { method: 'get', path: '/api/users/escalation-policies', summary: 'List escalation policies', tag: 'Alerts', access: 'key', data: list(EscalationPolicyResource) },
  { method: 'get', path: '/api/users/escalation-policies/{id}', summary: 'One escalation policy', tag: 'Alerts', access: 'key', data: EscalationPolicyResource },
  { method: 'post', path: '/api/users/escalation-policies', summary: 'Create an escalation policy (plans with advanced alerts)', tag: 'Alerts', access: 'key', body: EscalationPolicyBody, data: EscalationPolicyResource, created: true, errors: [403] },
  { method: 'put', path: '/api/users/escalation-policies/{id}', summary: 'Replace an escalation policy (running incidents keep the steps they started with)', tag: 'Alerts', access: 'key', body: EscalationPolicyBody, data: EscalationPolicyResource, errors: [403] },
  { method: 'delete', path: '/api/users/escalation-policies/{id}', summary: 'Delete an escalation policy (its endpoints go back to every enabled method at once)', tag: 'Alerts', access: 'key', data: z.object({ escalation_policy_id: z.number().int() }) },
  { method: 'get', path: '/api/users/endpoints/{url_id}/screenshots', summary: "A browser endpoint's stored screenshots, newest first (at most 100; kept for the plan's retention)", tag: 'Endpoints', access: 'key', data: list(ScreenshotResource) },
  {
    method: 'get', path: '/api/users/endpoints/{url_id}/screenshots/{shot_id}', summary: 'One screenshot: the PNG or WebP image itself (Cache-Control: private)', tag: 'Endpoints', access: 'key', data: z.string(),
    media: { types: ['image/png', 'image/webp'], description: 'the image bytes' },
  },
  { method: 'get', path: '/api/users/endpoints/{url_id}/slo', summary: 'An endpoint\'s SLO: uptime over its window, error budget, burn rates and when the budget runs out', tag: 'Reports', access: 'key', data: SloResource, errors: [503] },
  {
    method: 'get', path: '/api/users/reports/sla', summary: 'SLA report per endpoint (or region or month): uptime, downtime, outages, MTTR, MTTA; maintenance left out (format=csv: the same as CSV)',
    tag: 'Reports', access: 'key', query: SlaReportQuery, data: SlaReportResource, errors: [503],
  },
  { method: 'get', path: '/api/users/reports/schedule', summary: 'The monthly SLA report by mail: on or off, recipients, when it goes next (admins and owners)', tag: 'Reports', access: 'key', data: ReportScheduleResource },
  {
    method: 'put', path: '/api/users/reports/schedule', summary: "Turn the monthly SLA report by mail on or off and choose its recipients (sent on the 1st in the owner's timezone; admins and owners)",
    tag: 'Reports', access: 'key', body: ReportScheduleBody, data: ReportScheduleResource,
  },
  { method: 'get', path: '/api/graphs/endpoint/{id}', summary: 'Graph series of an endpoint', tag: 'Graphs', access: 'key', query: GraphQuery, data: GraphsResource, errors: [503] },
  { method: 'get', path: '/api/users/api-keys', summary: 'List API keys (never the keys themselves)', tag: 'API keys', access: 'session', data: list(ApiKeyResource) },
  { method: 'post', path: '/api/users/api-keys', summary: 'Create an API key (shown once, in this answer)', tag: 'API keys', access: 'session', body: ApiKeyCreateBody, data: CreatedApiKeyResource, created: true },
  { method: 'delete', path: '/api/users/api-keys/{id}', summary: 'Revoke an API key at once', tag: 'API keys', access: 'session', data: deletedKey },
  ...STATUS_PAGE_ROUTES,
  ...WORKSPACE_ROUTES,
];

const ERROR_TEXT: Record<number, string> = {
  400: 'The body or query is invalid (the first problem, in words)',
  401: 'No credentials, or an invalid, expired or revoked key or session',
  403: 'The plan has no API access, or an API key was used on an account route',
  404: 'No such id for this account (another account\'s ids are not found either)',
  409: 'Conflicts with an existing item',
  429: 'The API key (or, on public routes, the client address) used its allowance for this minute',
  500: 'An unexpected server error; the text carries a request id to quote',
  503: 'The results store, alerting or billing is not available on this server (browser-run: no agent that can run browser checks is connected)',
  504: 'No answer in time (browser-run: the agent did not answer within the check\'s timeout plus 15 s)',
};

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

const TAG_TEXT: Record<string, string> = {
  Catalogue: 'Plans, regions and monitor types', Billing: 'Plan purchases (Stripe), when billing is on', Endpoints: 'Monitored endpoints and their live state',
  Alerts: 'Alert thresholds, alert methods, deliveries and incidents', Graphs: 'Time series of an endpoint\'s checks', Reports: 'SLOs, error budgets and SLA reports', 'API keys': 'Keys for this API (session only)',
  'Status pages': 'Public status pages, incident reports, maintenance windows and subscribers', Workspaces: 'Teams: workspaces, members, invitations and the audit log (session only)',
};

/** JSON Schema of `schema`: its named parts go to `defs` (a different definition under a taken name throws). */
function toSchema(schema: z.ZodType, io: 'input' | 'output', defs: Record<string, unknown>): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  const text = JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/');
  const { $schema: _s, $defs, ...rest } = JSON.parse(text) as Record<string, unknown> & { $defs?: Record<string, unknown> };
  for (const [id, def] of Object.entries($defs ?? {})) {
    if (id in defs && JSON.stringify(defs[id]) !== JSON.stringify(def)) throw new Error(`OpenAPI: two different schemas are named ${id}`);
    defs[id] = def;
  }
  return rest;
}

export function buildOpenApi(opts: { version: string; rateLimitPerMinute: number; publicUrl?: string | null }): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const rateHeaders = {
    'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
    'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
    'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of API_ROUTES) {
    const params: unknown[] = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1], in: 'path', required: true, schema: m[1] === 'slug' || m[1] === 'token' ? { type: 'string' } : m[1] === 'shot_id' ? { type: 'string', pattern: '^[0-9a-f]{32}$' } : { type: 'string', pattern: '^\\d{1,15}$' },
    }));
    if (r.query) {
      const q = toSchema(r.query, 'input', defs);
      const queryId = typeof q.$ref === 'string' ? q.$ref.split('/').pop()! : null;
      const props = ((queryId ? defs[queryId] : q) as { properties?: Record<string, unknown>; required?: string[] }) ?? {};
      // A query becomes parameters: its schema as a whole is referenced nowhere (lint: unused component).
      if (queryId) delete defs[queryId];
      for (const [name, schema] of Object.entries(props.properties ?? {})) {
        params.push({ name, in: 'query', required: props.required?.includes(name) ?? false, schema });
      }
    }
    if (r.dryRun) {
      params.push({
        name: 'dry_run', in: 'query', required: false, schema: { type: 'string', enum: ['1', 'true', '0', 'false'] },
        description: '1: check the endpoint as a save would (plan features and regions, private targets, a URL already monitored) and answer 200 { dry_run: true, endpoint } without saving; the account\'s endpoint count is not checked (a whole file may delete first)',
      });
    }
    const keyed = r.access === 'key';
    const success = {
      description: r.created ? 'Created' : 'OK',
      ...(keyed || r.headers ? { headers: { ...(keyed ? rateHeaders : {}), ...Object.fromEntries((r.headers ?? []).map((h) => [h, { $ref: `#/components/headers/${h}` }])) } } : {}),
      content: r.stream
        ? { 'text/event-stream': { schema: { type: 'string', description: r.stream } } }
        : r.media
        ? Object.fromEntries(r.media.types.map((t) => [t, { schema: { type: 'string', description: r.media!.description } }]))
        : {
            'application/json': {
              schema: {
                type: 'object',
                required: ['success', 'data'],
                properties: { success: { const: true }, data: toSchema(r.data, 'output', defs), message: { type: 'string' } },
              },
            },
          },
    };
    const statuses = new Set<number>(r.errors ?? []);
    if (r.body || r.query) statuses.add(400);
    if (params.some((p) => (p as { in: string }).in === 'path')) statuses.add(404);
    if (r.access !== 'public') [401, 403].forEach((s) => statuses.add(s));
    if (keyed) statuses.add(429);
    if (r.access === 'public') [429, 500].forEach((s) => statuses.add(s));
    const responses: Record<string, unknown> = { [r.created ? '201' : '200']: success };
    if (r.dryRun && r.created) {
      responses['200'] = {
        description: 'Dry run (dry_run=1): the endpoint as it would be saved; nothing was saved',
        content: { 'application/json': { schema: { type: 'object', required: ['success', 'data'], properties: {
          success: { const: true },
          data: { type: 'object', required: ['dry_run', 'endpoint'], properties: { dry_run: { const: true }, endpoint: toSchema(EndpointCreateBody, 'input', defs) } },
        } } } },
      };
    }
    for (const s of [...statuses].sort()) responses[String(s)] = { $ref: `#/components/responses/Error${s}` };
    paths[r.path] ??= {};
    paths[r.path][r.method] = {
      operationId: `${r.method}${r.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: r.summary,
      tags: [r.tag],
      security: r.access === 'public' ? [] : r.access === 'key' ? [{ apiKey: [] }, { session: [] }] : [{ session: [] }],
      ...(params.length ? { parameters: params } : {}),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(r.body, 'input', defs) } } } } : {}),
      responses,
    };
  }

  const errorResponses = Object.fromEntries(
    Object.entries(ERROR_TEXT).map(([status, text]) => [
      `Error${status}`,
      {
        description: text,
        ...(status === '429' ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...rateHeaders } } : {}),
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );
  const intHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Upfleet API',
      version: opts.version,
      description:
        'Manage monitored endpoints, alert thresholds and alert methods, and read graphs, with an API key (Pro and Business plans). ' +
        'Create a key on the Profile page and send it as `Authorization: Bearer upk_…`. Every answer is `{ success: true, data }` ' +
        `or \`{ success: false, error }\`. Each key may make ${opts.rateLimitPerMinute} requests a minute; every keyed answer says how many remain.`,
    },
    // PUBLIC_URL when set; otherwise the server that served this document (a relative URL).
    servers: [opts.publicUrl ? { url: opts.publicUrl, description: 'This Upfleet server' } : { url: '/', description: 'The server that served this document' }],
    tags: ['Catalogue', 'Billing', 'Endpoints', 'Alerts', 'Graphs', 'Reports', 'API keys', 'Status pages', 'Workspaces'].map((name) => ({ name, description: TAG_TEXT[name] })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key, `upk_…` (data routes only; account routes answer 403)' },
        session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A web session\'s access token' },
      },
      schemas: {
        ...defs,
        Error: {
          type: 'object',
          required: ['success', 'error'],
          properties: { success: { const: false }, error: { type: 'string', description: 'What went wrong, for people' } },
        },
      },
      responses: errorResponses,
      headers: {
        'RateLimit-Limit': intHeader('Requests this key may make a minute'),
        'RateLimit-Remaining': intHeader('Requests left in the current minute'),
        'RateLimit-Reset': intHeader('Seconds until the minute resets'),
        'Retry-After': intHeader('Seconds to wait before retrying'),
        'X-Total-Count': intHeader('Endpoints in the account, or matching q/status (sent with a page, a search or a filter of the list)'),
      },
    },
  };
}
