// The OpenAPI document (GET /api/openapi.json) validates as OpenAPI 3.1, covers the public API, and
// the running server's real answers (with a chDB results store, through an API key) match the
// response schemas of their routes and statuses. /api/docs serves swagger-ui's bundle, no inline script.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '@upfleet/proto';
import { startHarness, startHarnessWithResults } from '../testing/harness';
import { buildOpenApi } from './openapi';
import { exerciseStatusPages } from './openapi-status-pages.testkit';
import { exerciseWorkspaces } from './openapi-workspaces.testkit';

type Doc = { openapi: string; paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, { $ref?: string }> }>> };

let h: Awaited<ReturnType<typeof startHarnessWithResults>>;
let doc: Doc;

beforeAll(async () => {
  h = await startHarnessWithResults();
  const r = await h.call('GET', '/api/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('GET /api/openapi.json', () => {
  it('validates as an OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('passes what redocly lint checks: servers, unique operationIds, declared tags, no unused components', () => {
    const d = doc as unknown as { servers: unknown; tags: Array<{ name: string }>; components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, { operationId: string; tags: string[] }>> };
    // PUBLIC_URL unset: the server that served the document
    expect(d.servers).toEqual([{ url: '/', description: 'The server that served this document' }]);
    expect((buildOpenApi({ version: '1', rateLimitPerMinute: 1, publicUrl: 'https://status.example.com' }) as { servers: unknown }).servers).toEqual([{ url: 'https://status.example.com', description: 'This Upfleet server' }]);
    const ops = Object.values(d.paths).flatMap((methods) => Object.values(methods));
    const ids = ops.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const declared = new Set(d.tags.map((t) => t.name));
    for (const o of ops) for (const t of o.tags) expect(declared.has(t), `tag ${t} of ${o.operationId}`).toBe(true);
    const text = JSON.stringify({ paths: d.paths, components: { ...d.components, schemas: undefined } });
    const schemaText = JSON.stringify(d.components.schemas);
    for (const name of Object.keys(d.components.schemas)) {
      const ref = `"#/components/schemas/${name}"`;
      expect(text.includes(ref) || schemaText.includes(ref), `component ${name} is used`).toBe(true);
    }
  });

  it('covers every route a key may call, plus key management, with the bearer schemes and error statuses', () => {
    const ops = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual([
      'DELETE /api/users/alert-methods/{alert_method_id}', 'DELETE /api/users/api-keys/{id}', 'DELETE /api/users/endpoints/{url_id}',
      'GET /api/graphs/endpoint/{id}', 'GET /api/public/packages', 'GET /api/public/regions', 'GET /api/users/alert-methods',
      'GET /api/users/api-keys', 'GET /api/users/dashboard', 'GET /api/users/endpoints-with-uptime', 'GET /api/users/events',
      'GET /api/users/endpoints/{url_id}/alert-thresholds', 'GET /api/users/monitor-types', 'GET /api/users/regions',
      'PATCH /api/users/endpoints/{url_id}/toggle', 'POST /api/users/alert-methods', 'POST /api/users/api-keys', 'POST /api/users/endpoints',
      'PUT /api/users/alert-methods/{alert_method_id}', 'PUT /api/users/endpoints/{url_id}', 'PUT /api/users/endpoints/{url_id}/alert-thresholds',
      'GET /api/users/alert-methods/{alert_method_id}/signing-secret', 'POST /api/users/alert-methods/{alert_method_id}/test',
      'GET /api/users/alert-methods/{alert_method_id}/deliveries', 'GET /api/users/incidents', 'POST /api/public/create-checkout-session',
      'GET /api/users/incidents/{id}', 'GET /api/users/incidents/stats', 'POST /api/users/incidents/{id}/acknowledge', 'POST /api/users/incidents/acknowledge',
      'POST /api/users/incidents/groups/{id}/acknowledge', 'GET /api/users/alert-settings', 'PUT /api/users/alert-settings',
      'GET /api/public/billing', 'GET /api/public/invitations/{token}',
      // Escalation policies
      'GET /api/users/escalation-policies', 'POST /api/users/escalation-policies', 'GET /api/users/escalation-policies/{id}',
      'PUT /api/users/escalation-policies/{id}', 'DELETE /api/users/escalation-policies/{id}',
      // Reports
      'GET /api/users/endpoints/{url_id}/slo', 'GET /api/users/reports/sla', 'GET /api/users/reports/schedule', 'PUT /api/users/reports/schedule',
      // One endpoint and a heartbeat's ping log
      'GET /api/users/endpoints/{url_id}', 'GET /api/users/endpoints/{url_id}/pings', 'POST /api/users/endpoints/{url_id}/rotate-ping-url',
      // Run now of a browser check
      'POST /api/users/endpoints/browser-run',
      // Data out
      'GET /api/users/endpoints/{url_id}/results', 'GET /api/users/metrics',
      // Browser checks' screenshots
      'GET /api/users/endpoints/{url_id}/screenshots', 'GET /api/users/endpoints/{url_id}/screenshots/{shot_id}', 'GET /api/users/endpoints/{url_id}/badge', 'POST /api/users/endpoints/{url_id}/badge/rotate',
      // Status pages
      'GET /api/public/status/{slug}', 'GET /api/users/status-pages', 'POST /api/users/status-pages', 'GET /api/users/status-pages/slug-available',
      'GET /api/users/status-pages/{id}', 'PUT /api/users/status-pages/{id}', 'DELETE /api/users/status-pages/{id}',
      'GET /api/users/status-pages/{id}/reports', 'POST /api/users/status-pages/{id}/reports', 'PUT /api/users/status-pages/{id}/reports/{report_id}',
      'DELETE /api/users/status-pages/{id}/reports/{report_id}', 'POST /api/users/status-pages/{id}/reports/{report_id}/updates',
      'PUT /api/users/status-pages/{id}/reports/{report_id}/updates/{update_id}', 'DELETE /api/users/status-pages/{id}/reports/{report_id}/updates/{update_id}',
      'GET /api/users/maintenance-windows', 'POST /api/users/maintenance-windows', 'GET /api/users/maintenance-windows/{id}',
      'PUT /api/users/maintenance-windows/{id}', 'DELETE /api/users/maintenance-windows/{id}',
      'POST /api/public/status/{slug}/subscribe', 'GET /api/users/status-pages/{id}/subscribers', 'DELETE /api/users/status-pages/{id}/subscribers/{subscriber_id}',
      'POST /api/users/status-pages/{id}/verify-domain',
      // Workspaces, members, invitations and the audit log (the routes the README lists)
      'GET /api/workspaces', 'POST /api/workspaces', 'GET /api/workspaces/{id}', 'PUT /api/workspaces/{id}', 'DELETE /api/workspaces/{id}',
      'GET /api/workspaces/{id}/members', 'PUT /api/workspaces/{id}/members/{user_id}', 'DELETE /api/workspaces/{id}/members/{user_id}',
      'GET /api/workspaces/{id}/invitations', 'POST /api/workspaces/{id}/invitations', 'DELETE /api/workspaces/{id}/invitations/{inv_id}',
      'POST /api/invitations/{token}/accept', 'GET /api/workspaces/{id}/audit-log',
    ].sort());
    const keyed = doc.paths['/api/users/endpoints'].post;
    expect(keyed.security).toEqual([{ apiKey: [] }, { session: [] }]);
    // 200: the dry run (?dry_run=1)
    expect(Object.keys(keyed.responses).sort()).toEqual(['200', '201', '400', '401', '403', '409', '429']);
    expect((keyed as { parameters?: unknown }).parameters).toEqual([expect.objectContaining({ name: 'dry_run', in: 'query', required: false })]);
    expect(doc.paths['/api/users/api-keys'].post.security).toEqual([{ session: [] }]);
    expect(doc.paths['/api/public/packages'].get.security).toEqual([]);
    expect((doc as unknown as { components: { securitySchemes: unknown } }).components.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
    });
  });

  it('lists the error answers of every route, at least 429 and 500 on the public ones, each a defined error response', () => {
    const components = (doc as unknown as { components: { responses: Record<string, { content: { 'application/json': { schema: { $ref: string } } } }> } }).components;
    const ops = Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => ({ name: `${m.toUpperCase()} ${p}`, op })));
    expect(ops.length).toBeGreaterThan(20);
    for (const { name, op } of ops) {
      const errors = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      expect(errors.length, `${name} lists no error answer`).toBeGreaterThan(0);
      if (op.security.length === 0) expect(errors, `${name} is public`).toEqual(expect.arrayContaining(['429', '500']));
      else expect(errors, `${name} is signed in`).toEqual(expect.arrayContaining(['401', '403']));
      if (op.security.some((s) => 'apiKey' in (s as object))) expect(errors, `${name} takes a key`).toContain('429');
      for (const s of errors) {
        const id = op.responses[s].$ref?.split('/').pop() ?? '';
        expect(components.responses[id]?.content['application/json'].schema.$ref, `${name} ${s}`).toBe('#/components/schemas/Error');
      }
    }
  });

  it('documents every /api/public, /api/users, /api/graphs, /api/workspaces and /api/invitations route the server registers, but the account routes', () => {
    // The routes as express holds them in the running control plane (every feature's routes).
    const app = h.cp.httpServer.listeners('request')[0] as unknown as { router: { stack: Layer[] } };
    type Layer = { route?: { path: string | RegExp; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
    const registered: string[] = [];
    const walk = (stack: Layer[]) => {
      for (const l of stack) {
        if (l.route) for (const m of Object.keys(l.route.methods)) registered.push(`${m.toUpperCase()} /api${String(l.route.path).replace(/:\w+/g, '{}')}`);
        else if (l.handle?.stack) walk(l.handle.stack);
      }
    };
    walk(app.router.stack);
    const account = ['GET /api/users/profile', 'PUT /api/users/profile', 'POST /api/users/change-password'];
    const inScope = registered.filter((r) => /^\w+ \/api\/(public|users|graphs|workspaces|invitations)(\/|$)/.test(r) && !account.includes(r));
    const documented = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p.replace(/\{\w+\}/g, '{}')}`));
    expect(inScope.length).toBeGreaterThan(20);
    expect(documented.sort()).toEqual(inScope.sort());
  });

  it('describes the real answers of the running server, success and error, for every route', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(doc, 'openapi.json');
    const exercised = new Set<string>();
    const ptr = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
    /** Calls a documented operation and checks the body against the schema for the answer's status. */
    const call = async (method: string, docPath: string, url: string, body?: unknown, token?: string) => {
      const r = await h.call(method, url, body, token);
      expect(Object.keys(doc.paths[docPath] ?? {}), `${method} ${docPath} is documented`).toContain(method.toLowerCase());
      const responses = doc.paths[docPath][method.toLowerCase()].responses;
      expect(Object.keys(responses), `${method} ${url} answered ${r.status}, which its route does not document: ${JSON.stringify(r.body)}`).toContain(String(r.status));
      const response = responses[String(r.status)];
      const target = response.$ref
        ? `openapi.json${response.$ref}/content/application~1json/schema`
        : `openapi.json#/paths/${ptr(docPath)}/${method.toLowerCase()}/responses/${r.status}/content/application~1json/schema`;
      const validate = ajv.compile({ $ref: target });
      expect(validate(r.body), `${method} ${url} → ${r.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(r.body).slice(0, 400)}`).toBe(true);
      exercised.add(`${method} ${docPath}`);
      return r;
    };

    const s = await h.signup();
    await h.setPackage(s.user.email, 'Pro');
    const created = await call('POST', '/api/users/api-keys', '/api/users/api-keys', { name: 'openapi' }, s.token);
    const key = created.body.data.key as string;
    await call('POST', '/api/users/api-keys', '/api/users/api-keys', { name: '' }, s.token); // 400
    await call('GET', '/api/users/api-keys', '/api/users/api-keys', undefined, s.token);
    await call('GET', '/api/users/api-keys', '/api/users/api-keys', undefined, key); // 403

    await call('GET', '/api/public/packages', '/api/public/packages');
    await call('GET', '/api/public/regions', '/api/public/regions');
    expect((await call('GET', '/api/public/billing', '/api/public/billing')).body.data).toEqual({ enabled: false, default_package: 'Free' });
    await call('GET', '/api/public/invitations/{token}', '/api/public/invitations/not-a-real-token-at-all-xx'); // 404
    await call('POST', '/api/public/create-checkout-session', '/api/public/create-checkout-session', {}); // 400
    await call('GET', '/api/users/regions', '/api/users/regions', undefined, key);
    await call('GET', '/api/users/monitor-types', '/api/users/monitor-types', undefined, key);
    await call('GET', '/api/users/dashboard', '/api/users/dashboard', undefined, key);
    await call('GET', '/api/users/dashboard', '/api/users/dashboard', undefined, 'upk_unknown'); // 401

    const body = { name: 'Docs', url: 'https://example.com/docs', description: 'reference', regions: ['EU-Germany', 'US-Virginia'], response_time: true, ping_host: true };
    const ep = await call('POST', '/api/users/endpoints', '/api/users/endpoints', body, key);
    const id = ep.body.data.url_id as number;
    await call('POST', '/api/users/endpoints', '/api/users/endpoints', body, key); // 409
    await call('POST', '/api/users/endpoints', '/api/users/endpoints', { ...body, url: 'ftp://example.com' }, key); // 400
    await call('PUT', '/api/users/endpoints/{url_id}', `/api/users/endpoints/${id}`, { ...body, name: 'Docs page' }, key);
    await call('PUT', '/api/users/endpoints/{url_id}', '/api/users/endpoints/987654', body, key); // 404
    await call('PATCH', '/api/users/endpoints/{url_id}/toggle', `/api/users/endpoints/${id}/toggle`, {}, key);
    await call('POST', '/api/users/endpoints/browser-run', '/api/users/endpoints/browser-run', {}, key); // 400
    await call('POST', '/api/users/endpoints/browser-run', '/api/users/endpoints/browser-run', { url: 'https://example.com/', steps: [] }, key); // 503: no agent
    await call('GET', '/api/users/endpoints/{url_id}', `/api/users/endpoints/${id}`, undefined, key);
    await call('GET', '/api/users/endpoints/{url_id}', '/api/users/endpoints/987654', undefined, key); // 404
    const beat = await call('POST', '/api/users/endpoints', '/api/users/endpoints', { name: 'Nightly job', kind: 'heartbeat', cron: '0 3 * * *', timezone: 'Europe/Berlin' }, key);
    expect((await fetch(`${beat.body.data.ping_url}/start`)).status).toBe(200);
    expect((await fetch(beat.body.data.ping_url, { method: 'POST', body: 'done' })).status).toBe(200);
    const pings = await call('GET', '/api/users/endpoints/{url_id}/pings', `/api/users/endpoints/${beat.body.data.url_id}/pings`, undefined, key);
    expect(pings.body.data.map((p: { kind: string }) => p.kind)).toEqual(['success', 'start']);
    await call('GET', '/api/users/endpoints/{url_id}/pings', `/api/users/endpoints/${id}/pings`, undefined, key); // 400: not a heartbeat
    await call('POST', '/api/users/endpoints/{url_id}/rotate-ping-url', `/api/users/endpoints/${beat.body.data.url_id}/rotate-ping-url`, undefined, key);
    await call('POST', '/api/users/endpoints/{url_id}/rotate-ping-url', `/api/users/endpoints/${id}/rotate-ping-url`, undefined, key); // 400: not a heartbeat
    await call('DELETE', '/api/users/endpoints/{url_id}', `/api/users/endpoints/${beat.body.data.url_id}`, undefined, key);
    await call('GET', '/api/users/endpoints/{url_id}/alert-thresholds', `/api/users/endpoints/${id}/alert-thresholds`, undefined, key);
    await call('PUT', '/api/users/endpoints/{url_id}/alert-thresholds', `/api/users/endpoints/${id}/alert-thresholds`, {
      alert_thresholds: [{ monitor_type_id: 4, threshold_value: 800, threshold_operator: '>', is_enabled: true, region_id: 2 }],
    }, key);

    const now = Date.now();
    const rows: CheckResult[] = [0, 1, 2].map((i) => ({
      check_id: `${id}:http:EU-Germany`, endpoint_id: id, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: now - (i + 1) * 60_000,
      ok: true, phase: '', error: '', status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: 1, ttfb_ms: 5, total_ms: 40 + i, cert_days_left: 0,
      cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: 30, result_id: `openapi-${i}`,
    }));
    // Results older than their endpoint are never shown: the endpoint has existed for the hour.
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(now - 3_600_000).toISOString(), id);
    await h.store.insertBatch('openapi-batch', 'agent-1', rows);
    const graphs = await call('GET', '/api/graphs/endpoint/{id}', `/api/graphs/endpoint/${id}?hours=1`, undefined, key);
    expect(graphs.body.data.graphs.some((g: { data: unknown[] }) => g.data.length > 0)).toBe(true);
    await call('GET', '/api/graphs/endpoint/{id}', `/api/graphs/endpoint/${id}?hours=-1`, undefined, key); // 400
    await call('GET', '/api/users/endpoints/{url_id}/slo', `/api/users/endpoints/${id}/slo`, undefined, key);
    const day = new Date(now).toISOString().slice(0, 10);
    const sla = await call('GET', '/api/users/reports/sla', `/api/users/reports/sla?from=${day}&to=${day}&group_by=region`, undefined, key);
    expect(sla.body.data.rows.length).toBeGreaterThan(0);
    await call('GET', '/api/users/reports/sla', `/api/users/reports/sla?from=${day}&to=${day}&group_by=week`, undefined, key); // 400
    await call('PUT', '/api/users/reports/schedule', '/api/users/reports/schedule', { enabled: true, recipients: ['ops@example.com'] }, key);
    await call('PUT', '/api/users/reports/schedule', '/api/users/reports/schedule', { enabled: true, recipients: ['a@example.com; b@example.com'] }, key); // 400
    await call('GET', '/api/users/reports/schedule', '/api/users/reports/schedule', undefined, key);
    await call('GET', '/api/users/endpoints-with-uptime', '/api/users/endpoints-with-uptime', undefined, key);
    const found = await call('GET', '/api/users/endpoints-with-uptime', '/api/users/endpoints-with-uptime?q=docs&status=pending,paused,up&sort=-status&limit=10', undefined, key);
    expect(found.body.data.map((e: { url_id: number }) => e.url_id)).toEqual([id]);
    await call('GET', '/api/users/endpoints-with-uptime', '/api/users/endpoints-with-uptime?sort=size', undefined, key); // 400
    await call('GET', '/api/users/events', '/api/users/events', undefined, 'upk_unknown'); // 401
    const stream = await fetch(`${h.cp.url}/api/users/events`, { headers: { authorization: `Bearer ${key}` } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(Object.keys(doc.paths['/api/users/events'].get.responses['200'] as object)).toContain('content');
    await stream.body?.cancel();

    const method = await call('POST', '/api/users/alert-methods', '/api/users/alert-methods', { platform: 'slack', platform_config: { bot_token: 'xoxb-1', channel: '#ops' } }, key);
    const mid = method.body.data.alert_method_id as number;
    await call('GET', '/api/users/alert-methods', '/api/users/alert-methods', undefined, key);
    await call('PUT', '/api/users/alert-methods/{alert_method_id}', `/api/users/alert-methods/${mid}`, { is_enabled: false }, key);
    await call('DELETE', '/api/users/alert-methods/{alert_method_id}', `/api/users/alert-methods/${mid}`, undefined, key);

    // A webhook method on a real local receiver: its secret, a test send and the delivery it left.
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.url ?? '');
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const hook = await call('POST', '/api/users/alert-methods', '/api/users/alert-methods', {
        platform: 'webhook', platform_config: { webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` },
      }, key);
      const hid = hook.body.data.alert_method_id as number;
      expect(hook.body.data.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      await call('GET', '/api/users/alert-methods/{alert_method_id}/signing-secret', `/api/users/alert-methods/${hid}/signing-secret`, undefined, key);
      await call('POST', '/api/users/alert-methods/{alert_method_id}/test', `/api/users/alert-methods/${hid}/test`, {}, key);
      expect(received).toEqual(['/hook']);
      const deliveries = await call('GET', '/api/users/alert-methods/{alert_method_id}/deliveries', `/api/users/alert-methods/${hid}/deliveries`, undefined, key);
      expect(deliveries.body.data.length).toBeGreaterThan(0);
      await call('GET', '/api/users/alert-methods/{alert_method_id}/deliveries', '/api/users/alert-methods/987654/deliveries', undefined, key); // 404
      const policy = { name: 'On call', steps: [{ wait_minutes: 0, alert_method_ids: [hid] }], repeat: 1, repeat_every_minutes: 30 };
      const made = await call('POST', '/api/users/escalation-policies', '/api/users/escalation-policies', policy, key);
      const pid = made.body.data.escalation_policy_id as number;
      await call('POST', '/api/users/escalation-policies', '/api/users/escalation-policies', { ...policy, repeat: 11 }, key); // 400
      await call('GET', '/api/users/escalation-policies', '/api/users/escalation-policies', undefined, key);
      await call('GET', '/api/users/escalation-policies/{id}', `/api/users/escalation-policies/${pid}`, undefined, key);
      await call('GET', '/api/users/escalation-policies/{id}', '/api/users/escalation-policies/987654', undefined, key); // 404
      await call('PUT', '/api/users/escalation-policies/{id}', `/api/users/escalation-policies/${pid}`, { ...policy, name: 'Renamed' }, key);
      await call('DELETE', '/api/users/escalation-policies/{id}', `/api/users/escalation-policies/${pid}`, undefined, key);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
    await call('GET', '/api/users/incidents', `/api/users/incidents?endpoint_id=${id}`, undefined, key);
    await call('GET', '/api/users/incidents', '/api/users/incidents?status=sometimes', undefined, key); // 400
    const inc = Number(h.cp.db.prepare("INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at) VALUES (?, ?, 'down', '[]', 'HTTP 503', ?)")
      .run(s.user.id, id, Date.now() - 60_000).lastInsertRowid);
    await call('POST', '/api/users/incidents/{id}/acknowledge', `/api/users/incidents/${inc}/acknowledge`, undefined, key);
    await call('POST', '/api/users/incidents/{id}/acknowledge', `/api/users/incidents/${inc}/acknowledge`, undefined, key); // 409
    await call('POST', '/api/users/incidents/{id}/acknowledge', '/api/users/incidents/987654/acknowledge', undefined, key); // 404
    expect((await call('POST', '/api/users/incidents/acknowledge', '/api/users/incidents/acknowledge', { incident_ids: [inc, 987654] }, key)).body.data.acknowledged).toEqual([]);
    await call('POST', '/api/users/incidents/acknowledge', '/api/users/incidents/acknowledge', { incident_ids: [] }, key); // 400
    expect((await call('GET', '/api/users/incidents/{id}', `/api/users/incidents/${inc}`, undefined, key)).body.data.timeline.map((e: { type: string }) => e.type)).toEqual(['opened', 'acknowledged']);
    await call('GET', '/api/users/incidents/{id}', '/api/users/incidents/987654', undefined, key); // 404
    const group = Number(h.cp.db.prepare('INSERT INTO incident_groups (user_id, created_at) VALUES (?, ?)').run(s.user.id, Date.now()).lastInsertRowid);
    h.cp.db.prepare("INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at, group_id) VALUES (?, ?, 'threshold:latency:any', '[]', 'slow', ?, ?)")
      .run(s.user.id, id, Date.now() - 60_000, group);
    expect((await call('POST', '/api/users/incidents/groups/{id}/acknowledge', `/api/users/incidents/groups/${group}/acknowledge`, undefined, key)).body.data.acknowledged).toHaveLength(1);
    await call('POST', '/api/users/incidents/groups/{id}/acknowledge', '/api/users/incidents/groups/987654/acknowledge', undefined, key); // 404
    await call('GET', '/api/users/alert-settings', '/api/users/alert-settings', undefined, key);
    await call('PUT', '/api/users/alert-settings', '/api/users/alert-settings', { group_threshold: 8 }, key);
    await call('PUT', '/api/users/alert-settings', '/api/users/alert-settings', { group_threshold: 1 }, key); // 400
    expect((await call('GET', '/api/users/incidents/stats', '/api/users/incidents/stats', undefined, key)).body.data.endpoints).toHaveLength(1);
    await call('GET', '/api/users/incidents/stats', '/api/users/incidents/stats?from=soon', undefined, key); // 400
    const incidentsCsv = await fetch(`${h.cp.url}/api/users/incidents?format=csv`, { headers: { authorization: `Bearer ${key}` } });
    expect(incidentsCsv.headers.get('content-type')).toMatch(/^text\/csv/);
    await call('GET', '/api/users/endpoints/{url_id}/results', `/api/users/endpoints/${id}/results?format=xlsx`, undefined, key); // 400
    const exported = await fetch(`${h.cp.url}/api/users/endpoints/${id}/results?format=ndjson`, { headers: { authorization: `Bearer ${key}` } });
    expect(exported.status).toBe(200);
    expect(Object.keys((doc.paths['/api/users/endpoints/{url_id}/results'].get.responses['200'] as { content: object }).content)).toContain(exported.headers.get('content-type')!.split(';')[0]);
    expect((await exported.text()).trimEnd().split('\n')).toHaveLength(3);
    await call('GET', '/api/users/metrics', '/api/users/metrics', undefined, 'upk_unknown'); // 401
    // screenshots: an endpoint without any lists none; a missing one is a JSON 404
    expect((await call('GET', '/api/users/endpoints/{url_id}/screenshots', `/api/users/endpoints/${id}/screenshots`, undefined, key)).body.data).toEqual([]);
    await call('GET', '/api/users/endpoints/{url_id}/screenshots/{shot_id}', `/api/users/endpoints/${id}/screenshots/${'0'.repeat(32)}`, undefined, key); // 404
    const badge = await call('GET', '/api/users/endpoints/{url_id}/badge', `/api/users/endpoints/${id}/badge`, undefined, key);
    const rotated = await call('POST', '/api/users/endpoints/{url_id}/badge/rotate', `/api/users/endpoints/${id}/badge/rotate`, undefined, key);
    expect(rotated.body.data.badge_token).not.toBe(badge.body.data.badge_token);
    await call('GET', '/api/users/endpoints/{url_id}/badge', '/api/users/endpoints/987654/badge', undefined, key); // 404
    const metrics = await fetch(`${h.cp.url}/api/users/metrics`, { headers: { authorization: `Bearer ${key}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toContain(`upfleet_check_up{endpoint=`);
    await exerciseStatusPages(call, key, id);
    const reader = await h.signup();
    await exerciseWorkspaces(call, s.token, 'correct horse', reader.token, reader.user.email, async (ws) => {
      const account = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data.find((w: { id: number }) => w.id === ws).account_email;
      await h.setPackage(account, 'Pro');
    });
    const team = (await h.call('POST', '/api/workspaces', { name: 'Docs team' }, s.token)).body.data.id as number;
    await h.setPackage((await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data.find((w: { id: number }) => w.id === team).account_email, 'Pro');
    const invitation = await h.call('POST', `/api/workspaces/${team}/invitations`, { email: 'reader@example.com', role: 'viewer' }, s.token);
    const invToken = String(invitation.body.data.link).split('/').pop()!;
    const shown = await call('GET', '/api/public/invitations/{token}', `/api/public/invitations/${invToken}`);
    expect(shown.body.data).toMatchObject({ workspace_name: 'Docs team', role: 'viewer', email: 'reader@example.com' });
    await call('DELETE', '/api/users/endpoints/{url_id}', `/api/users/endpoints/${id}`, undefined, key);
    await call('DELETE', '/api/users/api-keys/{id}', `/api/users/api-keys/${created.body.data.id}`, undefined, s.token);

    const documented = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
    expect([...exercised].sort()).toEqual(documented.sort());
  });
});

describe('/api/docs', () => {
  it('serves a reference page from swagger-ui-dist with its init script as a file (no inline script, no CDN)', async () => {
    const redirect = await fetch(`${h.cp.url}/api/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/api/docs/');
    const page = await fetch(`${h.cp.url}/api/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1])?.[1])).toEqual(['./swagger-ui-bundle.js', './upfleet-docs.js']);
    expect(scripts.every((m) => m[2].trim() === '')).toBe(true);
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'upfleet-docs.js']) {
      const res = await fetch(`${h.cp.url}/api/docs/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(100);
    }
    const init = await (await fetch(`${h.cp.url}/api/docs/upfleet-docs.js`)).text();
    expect(init).toContain('../openapi.json');
  });

  it('serves only the page the product configures: not the package\'s petstore page, initializer, oauth2 redirect or source maps', async () => {
    const index = await fetch(`${h.cp.url}/api/docs/index.html`);
    expect(index.status).toBe(200);
    const html = await index.text();
    expect(html).toContain('./upfleet-docs.js');
    expect(html).not.toContain('swagger-initializer.js');
    for (const file of ['swagger-initializer.js', 'index.js', 'oauth2-redirect.html', 'oauth2-redirect.js', 'swagger-ui-bundle.js.map', 'package.json', 'README.md']) {
      const res = await fetch(`${h.cp.url}/api/docs/${file}`);
      expect([file, res.status]).toEqual([file, 404]);
      expect(await res.text()).not.toContain('petstore');
    }
    expect((await fetch(`${h.cp.url}/api/docs/favicon-32x32.png`)).status).toBe(200);
  });
});

describe('public routes are limited per address', () => {
  it('answers 429 with Retry-After, in the documented error shape, once an address used its minute', async () => {
    const small = await startHarness({ RATE_LIMIT_PUBLIC_PER_MINUTE: '3' });
    try {
      for (let i = 0; i < 3; i++) expect((await small.call('GET', '/api/public/regions')).status).toBe(200);
      const refused = await small.call('GET', '/api/public/packages');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ success: false, error: 'Too many requests from this address. Please try again in a minute.' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await small.call('GET', '/api/health')).status).toBe(200); // other routes are not counted
      // status-page reads are not counted either (many readers behind one address): an unknown page is 404, not 429
      expect((await small.call('GET', '/api/public/status/no-such-page')).status).toBe(404);
    } finally {
      await small.close();
    }
  });
});
