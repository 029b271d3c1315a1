// Over REST: an endpoint's kind (http default, tcp, dns), an HTTP check's request options
// and assertions, their validation (400, nothing stored), plan gating (403 in the SPEC's feature
// message style), secret header values sealed at rest and write-only, the private-target rule on
// tcp hosts and dns resolvers, and what the assignment carries to the agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { checksForEndpoint } from '../services/check-placement';
import { createEndpointsRepo } from '../store/endpoints-repo';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let pro: string;
let free: string;
let strict: Harness;
let strictToken: string;

beforeAll(async () => {
  h = await startHarness();
  const a = await h.signup('kinds_pro');
  await h.setPackage(a.user.email, 'Pro');
  pro = a.token;
  free = (await h.signup('kinds_free')).token;
  strict = await startHarness({ ALLOW_PRIVATE_TARGETS: '0' });
  const s = await strict.signup('kinds_strict');
  await strict.setPackage(s.user.email, 'Pro');
  strictToken = s.token;
});
afterAll(async () => {
  await h.close();
  await strict.close();
});

const list = async (token: string, harness = h) => (await harness.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data as Array<Record<string, unknown>>;
const create = (body: Record<string, unknown>, token = pro, harness = h) => harness.call('POST', '/api/users/endpoints', { regions: ['EU-Germany'], ...body }, token);

describe('endpoint kinds over the API', () => {
  it('every endpoint answer carries its kind, http included (a plain one and one with options)', async () => {
    const r = await create({ name: 'Plain', url: 'https://plain.example.com/' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ url: 'https://plain.example.com/' });
    expect(r.body.data.kind).toBe('http');
    const id = r.body.data.url_id as number;
    expect((await h.call('GET', `/api/users/endpoints/${id}`, undefined, pro)).body.data.kind).toBe('http');
    expect((await list(pro)).find((e) => e.url_id === id)!.kind).toBe('http');
    const paged = await h.call('GET', '/api/users/endpoints-with-uptime?limit=100', undefined, pro);
    expect((paged.body.data as Array<{ url_id: number; kind?: string }>).find((e) => e.url_id === id)!.kind).toBe('http');
    expect((await create({ name: 'Opts', url: 'https://opts.example.com/', request: { method: 'HEAD' } })).body.data.kind).toBe('http');
    expect(r.body.data.request).toBeUndefined();
    expect(r.body.data.assertions).toBeUndefined();
  });

  it('stores a request with method, headers, body, redirects and timeout, and assertions; answers them back', async () => {
    const request = { method: 'POST', headers: [{ name: 'Content-Type', value: 'application/json' }], body: '{"q":1}', follow_redirects: false, timeout_seconds: 7 };
    const assertions = [
      { source: 'status_code', comparison: 'equals', target: 201 },
      { source: 'json_body', property: '$.items[0].id', comparison: 'equals', target: 'a1' },
      { source: 'body', comparison: 'contains', target: 'ok' },
    ];
    const r = await create({ name: 'Api', url: 'https://api.example.com/search', request, assertions });
    expect(r.status).toBe(201);
    expect(r.body.data.request).toEqual(request);
    expect(r.body.data.assertions).toEqual([
      { source: 'status_code', property: '', comparison: 'equals', target: '201' },
      { source: 'json_body', property: '$.items[0].id', comparison: 'equals', target: 'a1' },
      { source: 'body', property: '', comparison: 'contains', target: 'ok' },
    ]);
    const got = (await list(pro)).find((e) => e.url_id === r.body.data.url_id)!;
    expect(got.request).toEqual(request);
  });

  it('creates tcp and dns endpoints with their targets; the same target twice is a 409', async () => {
    const tcp = await create({ name: 'Db', kind: 'tcp', target: 'DB.example.com:5432' });
    expect(tcp.status).toBe(201);
    expect(tcp.body.data).toMatchObject({ kind: 'tcp', target: 'db.example.com:5432', url: 'tcp://db.example.com:5432' });
    expect((await create({ name: 'Db again', kind: 'tcp', target: 'db.example.com:5432' })).status).toBe(409);
    const dns = await create({ name: 'Mx', kind: 'dns', target: 'example.com.', record_type: 'MX', resolver: '1.1.1.1', assertions: [{ source: 'answer', comparison: 'contains', target: 'mail.example.com' }] });
    expect(dns.status).toBe(201);
    expect(dns.body.data).toMatchObject({ kind: 'dns', target: 'example.com', record_type: 'MX', resolver: '1.1.1.1:53' });
    const dnsDefault = await create({ name: 'A', kind: 'dns', target: 'example.org' });
    expect(dnsDefault.body.data).toMatchObject({ record_type: 'A' });
    expect(dnsDefault.body.data.resolver).toBeUndefined();
  });

  it('two checks of one target that differ are two endpoints; only an identical check is "already monitoring"', async () => {
    const url = 'https://same-target.example.com/health';
    const conflict = { status: 409, body: { success: false, error: 'You are already monitoring this URL' } };
    expect((await create({ name: 'Get', url })).status).toBe(201);
    expect(await create({ name: 'Get again', url })).toMatchObject(conflict);
    // another method, another assertion: other checks of the same URL
    const head = await create({ name: 'Head', url, request: { method: 'HEAD' } });
    expect(head.status).toBe(201);
    expect(await create({ name: 'Head again', url, request: { method: 'HEAD' } })).toMatchObject(conflict);
    const asserted = await create({ name: 'Body ok', url, assertions: [{ source: 'body', comparison: 'contains', target: 'ok' }] });
    expect(asserted.status).toBe(201);
    expect((await create({ name: 'Body up', url, assertions: [{ source: 'body', comparison: 'contains', target: 'up' }] })).status).toBe(201);
    expect(await create({ name: 'Body ok again', url, assertions: [{ source: 'body', comparison: 'contains', target: 'ok' }] })).toMatchObject(conflict);
    // another port, another record type, another DNS assertion
    expect((await create({ name: 'Pg', kind: 'tcp', target: 'same-target.example.com:5432' })).status).toBe(201);
    expect((await create({ name: 'Pg replica', kind: 'tcp', target: 'same-target.example.com:5433' })).status).toBe(201);
    expect((await create({ name: 'A', kind: 'dns', target: 'same-target.example.com', record_type: 'A' })).status).toBe(201);
    expect((await create({ name: 'AAAA', kind: 'dns', target: 'same-target.example.com', record_type: 'AAAA' })).status).toBe(201);
    expect((await create({ name: 'A right', kind: 'dns', target: 'same-target.example.com', record_type: 'A', assertions: [{ source: 'answer', comparison: 'contains', target: '192.0.2.1' }] })).status).toBe(201);
    expect(await create({ name: 'A twice', kind: 'dns', target: 'same-target.example.com', record_type: 'A' })).toMatchObject(conflict);
    // an edit that would make a check identical to another is refused too, and changes nothing
    const edit = await h.call('PUT', `/api/users/endpoints/${head.body.data.url_id}`, { name: 'Head', url, regions: ['EU-Germany'] }, pro);
    expect(edit).toMatchObject(conflict);
    expect((await h.call('GET', `/api/users/endpoints/${head.body.data.url_id}`, undefined, pro)).body.data.request).toMatchObject({ method: 'HEAD' });
  });

  it.each([
    [{ name: 'x', kind: 'tcp' }, 'Target is required (host:port)'],
    [{ name: 'x', kind: 'tcp', target: 'db.example.com' }, 'Target must be host:port with a port from 1 to 65535'],
    [{ name: 'x', kind: 'tcp', target: 'db.example.com:70000' }, 'Target must be host:port with a port from 1 to 65535'],
    [{ name: 'x', kind: 'dns', target: 'not a name' }, 'Target must be a domain name'],
    [{ name: 'x', kind: 'dns', target: 'example.com', record_type: 'SOA' }, 'record_type must be one of A, AAAA, CNAME, MX, TXT, NS'],
    [{ name: 'x', kind: 'dns', target: 'example.com', resolver: 'dns.google' }, 'Resolver must be an IP address, optionally with :port'],
    [{ name: 'x', kind: 'ftp', url: 'https://a.example.com' }, 'kind must be one of http, tcp, dns, heartbeat, browser'],
    [{ name: 'x', url: 'https://a.example.com', request: { method: 'TRACE' } }, 'method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
    [{ name: 'x', url: 'https://a.example.com', request: { body: 'x'.repeat(64 * 1024 + 1) } }, 'Request body must be at most 64 kB'],
    [{ name: 'x', url: 'https://a.example.com', request: { timeout_seconds: 61 } }, 'timeout_seconds must be a whole number from 1 to 60'],
    [{ name: 'x', url: 'https://a.example.com', request: { timeout_seconds: 0 } }, 'timeout_seconds must be a whole number from 1 to 60'],
    [{ name: 'x', url: 'https://a.example.com', request: { headers: [{ name: 'Bad Name', value: 'v' }] } }, 'Header name must be a token such as X-Api-Key'],
    [{ name: 'x', url: 'https://a.example.com', request: { headers: [{ name: 'X-A', value: 'a\r\nInjected: 1' }] } }, 'Header value must be one line'],
    [{ name: 'x', url: 'https://a.example.com', request: { headers: [{ name: 'Content-Length', value: '5' }] } }, 'This header is set by the agent'],
    [{ name: 'x', url: 'https://a.example.com', request: { headers: [{ name: 'X-Key', secret: true }] } }, 'Header X-Key needs a value'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'json_body', property: 'status', comparison: 'equals', target: 'ok' }] }, 'A json_body assertion needs a JSON path such as $.status or $.items[0].id'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'status_code', comparison: 'contains', target: '20' }] }, 'status_code compares with equals, not_equals, less_than or greater_than'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'response_time', comparison: 'less_than', target: 'fast' }] }, 'response_time must be compared with a number'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'body', comparison: 'matches', target: '(' }] }, 'Please enter a valid regular expression'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'body', comparison: 'matches', target: 'a'.repeat(201) }] }, 'A regular expression must be at most 200 characters long'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'body', comparison: 'matches', target: '^(a+)+$' }] }, 'Nested quantifiers such as (a+)+ are not allowed in a regular expression'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'header', property: 'X-A', comparison: 'matches', target: '(\\w+\\s?)*x' }] }, 'Nested quantifiers such as (a+)+ are not allowed in a regular expression'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'body', comparison: 'matches', target: '(a)\\1' }] }, 'Backreferences (\\1, \\k<name>) are not allowed in a regular expression'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'json_body', property: '$.v', comparison: 'matches', target: 'a(?!b)' }] }, 'Lookarounds ((?=, (?!, (?<=, (?<!) are not allowed in a regular expression'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'header', comparison: 'equals', target: 'x' }] }, 'A header assertion needs a header name'],
    [{ name: 'x', url: 'https://a.example.com', assertions: [{ source: 'body', comparison: 'similar', target: 'x' }] }, 'comparison must be one of equals, not_equals, contains, not_contains, less_than, greater_than, matches'],
    [{ name: 'x', kind: 'dns', target: 'example.com', assertions: [{ source: 'body', comparison: 'contains', target: 'x' }] }, 'A DNS assertion checks the answer (source answer)'],
    [{ name: 'x', kind: 'tcp', target: 'a.example.com:1', request: { method: 'GET' } }, 'request is for http checks'],
  ])('refuses bad input #%# with 400 and its message, storing nothing', async (body, error) => {
    const before = (await list(pro)).length;
    const r = await create(body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error });
    expect((await list(pro)).length).toBe(before);
  });

  it('Free allows http only (of the kinds built): tcp and dns answer 403 in the SPEC feature style', async () => {
    const tcp = await create({ name: 'Db', kind: 'tcp', target: 'db.example.com:5432' }, free);
    expect(tcp.status).toBe(403);
    expect(tcp.body).toEqual({ success: false, error: MESSAGES.featureNotInPlan('TCP Port') });
    const dns = await create({ name: 'Dns', kind: 'dns', target: 'example.com' }, free);
    expect(dns.status).toBe(403);
    expect(dns.body.error).toBe('The DNS monitoring feature is not available in your current plan. Please upgrade to enable this feature.');
    expect((await create({ name: 'Web', url: 'https://free.example.com/' }, free)).status).toBe(201);
    const pkgs = (await h.call('GET', '/api/public/packages')).body.data as Array<{ package_name: string; monitor_kinds?: string[] }>;
    expect(pkgs.find((p) => p.package_name === 'Free')!.monitor_kinds).toEqual(['http', 'heartbeat']);
    // a plan that allows every kind lists them all: no client has to know that absent meant all
    expect(pkgs.find((p) => p.package_name === 'Starter')!.monitor_kinds).toEqual(['http', 'tcp', 'dns', 'heartbeat', 'browser']);
    for (const p of pkgs) expect(Array.isArray(p.monitor_kinds), p.package_name).toBe(true);
    const adminPkgs = (await h.call('GET', '/api/admin/packages', undefined, h.cp.adminToken)).body.data as Array<{ monitor_kinds?: string[] }>;
    for (const p of adminPkgs) expect(Array.isArray(p.monitor_kinds)).toBe(true);
  });

  it('a secret header value is sealed at rest, write-only in answers, kept on an edit without it, and sent to the agent', async () => {
    const request = { method: 'GET', headers: [{ name: 'Authorization', value: 'Bearer s3cr3t-value', secret: true }, { name: 'X-Plain', value: 'p' }] };
    const r = await create({ name: 'Secret', url: 'https://secret.example.com/', request });
    expect(r.status).toBe(201);
    const id = r.body.data.url_id as number;
    expect(r.body.data.request.headers).toEqual([{ name: 'Authorization', secret: true }, { name: 'X-Plain', value: 'p' }]);
    const stored = h.cp.db.prepare('SELECT config FROM endpoint_checks WHERE url_id = ?').pluck().get(id) as string;
    expect(stored).not.toContain('s3cr3t-value');
    expect(JSON.stringify(await list(pro))).not.toContain('s3cr3t-value');

    // PUT without the secret's value keeps it; other fields change
    const put = await h.call('PUT', `/api/users/endpoints/${id}`, { name: 'Secret 2', url: 'https://secret.example.com/', regions: ['EU-Germany'], request: { headers: [{ name: 'Authorization', secret: true }] } }, pro);
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ name: 'Secret 2', request: { headers: [{ name: 'Authorization', secret: true }] } });

    // the assignment (what the agent gets) carries the value in clear, read with the server's key
    const { createSecretBox } = await import('../lib/crypto');
    const { loadMasterKey, deriveKey } = await import('../lib/secrets-files');
    const repo = createEndpointsRepo(h.cp.db, createSecretBox(deriveKey(loadMasterKey(h.dataDir, null), 'secrets-at-rest')));
    const [a] = checksForEndpoint(repo.monitoredById(id)!, 'EU-Germany');
    expect(a.request).toEqual({ method: 'GET', headers: [{ name: 'Authorization', value: 'Bearer s3cr3t-value', secret: true }], body: '', follow_redirects: true });

    // a new secret value replaces the old one
    await h.call('PUT', `/api/users/endpoints/${id}`, { name: 'Secret 2', url: 'https://secret.example.com/', regions: ['EU-Germany'], request: { headers: [{ name: 'Authorization', value: 'Bearer new', secret: true }] } }, pro);
    expect(checksForEndpoint(repo.monitoredById(id)!, 'EU-Germany')[0].request!.headers).toEqual([{ name: 'Authorization', value: 'Bearer new', secret: true }]);
  });

  it('the assignment carries the kind, target, timeout and assertions; tcp and dns run one check per region', async () => {
    const repo = createEndpointsRepo(h.cp.db);
    const tcp = await create({ name: 'Redis', kind: 'tcp', target: 'redis.example.com:6379', regions: ['EU-Germany', 'US-Virginia'] });
    const checks = checksForEndpoint(repo.monitoredById(tcp.body.data.url_id)!, 'EU-Germany');
    expect(checks.map((c) => [c.kind, c.region, c.target])).toEqual([
      ['CHECK_KIND_TCP', 'EU-Germany', 'redis.example.com:6379'],
      ['CHECK_KIND_TCP', 'US-Virginia', 'redis.example.com:6379'],
    ]);
    const dns = await create({ name: 'Txt', kind: 'dns', target: 'txt.example.com', record_type: 'TXT', resolver: '[2606:4700:4700::1111]:53' });
    expect(checksForEndpoint(repo.monitoredById(dns.body.data.url_id)!, 'EU-Germany')[0]).toMatchObject({
      kind: 'CHECK_KIND_DNS', target: 'txt.example.com', record_type: 'TXT', resolver: '[2606:4700:4700::1111]:53', check_id: `${dns.body.data.url_id}:dns:EU-Germany`,
    });
    const http = await create({ name: 'Slow', url: 'https://slow.example.com/', request: { timeout_seconds: 45 }, assertions: [{ source: 'response_time', comparison: 'less_than', target: 2000 }] });
    expect(checksForEndpoint(repo.monitoredById(http.body.data.url_id)!, 'EU-Germany')[0]).toMatchObject({
      kind: 'CHECK_KIND_HTTP', timeout_ms: 45_000, assertions: [{ source: 'response_time', property: '', comparison: 'less_than', target: '2000' }],
    });
  });
});

describe('OpenAPI', () => {
  it('describes the kinds, the request and the assertions of an endpoint body and answer', async () => {
    const doc = (await h.call('GET', '/api/openapi.json')).body as { components: { schemas: Record<string, { properties: Record<string, any> }> } };
    const body = doc.components.schemas.EndpointCreateBody.properties;
    expect(body.kind.enum).toEqual(['http', 'tcp', 'dns', 'heartbeat', 'browser']);
    expect(Object.keys(body.request.properties).sort()).toEqual(['body', 'follow_redirects', 'headers', 'method', 'timeout_seconds']);
    expect(body.request.properties.method.enum).toContain('PATCH');
    expect(body.assertions.items.properties.comparison.enum).toContain('matches');
    expect(body.record_type.enum).toEqual(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS']);
    const answer = doc.components.schemas.Endpoint.properties;
    expect(Object.keys(answer)).toEqual(expect.arrayContaining(['kind', 'target', 'record_type', 'resolver', 'request', 'assertions']));
  });
});

describe('private targets for every kind (ALLOW_PRIVATE_TARGETS=0)', () => {
  it.each(['127.0.0.1:22', '[::1]:22', '[::ffff:127.0.0.1]:6379', '2130706433:80', '0x7f.1:80', '0177.0.0.1:80', 'localhost:5432', 'db.internal:5432', '169.254.169.254:80', '10.1.2.3:3306'])(
    'refuses tcp target %s', async (target) => {
      const r = await create({ name: 'T', kind: 'tcp', target }, strictToken, strict);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'Target must point to a public address' });
    },
  );
  it.each(['127.0.0.1', '127.0.0.1:5353', '[::1]:53', '10.0.0.2', '169.254.169.254', '[::ffff:7f00:1]', '[fe80::1]:53'])('refuses dns resolver %s', async (resolver) => {
    const r = await create({ name: 'D', kind: 'dns', target: 'example.com', resolver }, strictToken, strict);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'Resolver must be a public address' });
  });
  it('accepts public tcp targets and resolvers', async () => {
    expect((await create({ name: 'T', kind: 'tcp', target: '8.8.8.8:53' }, strictToken, strict)).status).toBe(201);
    expect((await create({ name: 'D', kind: 'dns', target: 'example.com', resolver: '8.8.8.8' }, strictToken, strict)).status).toBe(201);
    expect((await list(strictToken, strict)).length).toBe(2);
  });
});
