// An HTTP check made as its request says (each method, headers, body, redirects on/off,
// timeout) and judged by its assertions, against a real server on loopback that records what it got.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment, AssertionSpec } from '@upfleet/proto';
import { HTTP_METHODS } from '@upfleet/proto/assertions';
import { isDownResult } from '@upfleet/proto/outcome';
import { createHostResolver } from '../resolve';
import type { ProberOptions } from '../prober';
import { httpProber } from './index';

interface Seen { method: string; headers: http.IncomingHttpHeaders; body: string; url: string }
let seen: Seen[] = [];
let server: http.Server;
let base: string;
// Another origin (another port on loopback) that a redirect may lead to.
let other: http.Server;
let otherBase: string;
let otherSeen: http.IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, headers: req.headers, body, url: req.url! });
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/json') return void res.writeHead(200, { 'content-type': 'application/json', 'x-version': '2.1' }).end(JSON.stringify({ status: 'ok', items: [{ id: 'a1' }, { id: 'b2' }], count: 2 }));
      if (u.pathname === '/unavailable') return void res.writeHead(503).end('maintenance');
      if (u.pathname === '/redirect') return void res.writeHead(302, { location: '/json' }).end();
      if (u.pathname === '/elsewhere') return void res.writeHead(302, { location: `${otherBase}/landed` }).end();
      if (u.pathname === '/see-other') return void res.writeHead(303, { location: '/echo' }).end();
      if (u.pathname === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 1500);
      if (u.pathname === '/big') return void res.writeHead(200).end('x'.repeat(300_000) + 'needle');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${body}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = http.createServer((req, res) => {
    otherSeen.push(req.headers);
    res.writeHead(200).end('other origin');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await new Promise<void>((r) => other.close(() => r()));
});

const opts: ProberOptions = { timeoutMs: 1000, resolver: createHostResolver(), allowPrivateTargets: true };
const assignment = (path: string, over: Partial<Assignment> = {}): Assignment => ({
  check_id: '1:http:EU-Germany', endpoint_id: 1, kind: 'CHECK_KIND_HTTP', url: `${base}${path}`, interval_seconds: 60,
  timeout_ms: 1000, region: 'EU-Germany', retention_days: 30, ...over,
});
const request = (over: Partial<NonNullable<Assignment['request']>> = {}) => ({ method: 'GET', headers: [], body: '', follow_redirects: true, ...over });
const assertion = (source: string, comparison: string, target: string, property = ''): AssertionSpec => ({ source, comparison, target, property });
const run = (a: Assignment) => httpProber.probe(a, opts);

describe('http check request options', () => {
  it.each(HTTP_METHODS)('sends %s', async (method) => {
    seen = [];
    const r = await run(assignment('/echo', { request: request({ method }) }));
    expect(r).toMatchObject({ ok: true, status_code: 200 });
    expect(seen.map((s) => s.method)).toEqual([method]);
  });

  it('sends the body and the headers; a user-agent header replaces the agent one', async () => {
    seen = [];
    const headers = [{ name: 'Content-Type', value: 'application/json', secret: false }, { name: 'X-Api-Key', value: 'k-123', secret: true }, { name: 'User-Agent', value: 'custom/1', secret: false }];
    const r = await run(assignment('/echo', { request: request({ method: 'POST', headers, body: '{"q":"uptime"}' }) }));
    expect(r.ok).toBe(true);
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"q":"uptime"}' });
    expect(seen[0].headers).toMatchObject({ 'content-type': 'application/json', 'x-api-key': 'k-123', 'user-agent': 'custom/1' });
  });

  it('an old assignment without request fields is a GET with the agent user agent (compatible)', async () => {
    seen = [];
    expect((await run(assignment('/echo'))).ok).toBe(true);
    expect(seen[0].method).toBe('GET');
    expect(seen[0].headers['user-agent']).toBe('Upfleet-Agent/0.1 (region EU-Germany)');
  });

  it('follows redirects by default; with follow_redirects false the 3xx is the answer', async () => {
    expect(await run(assignment('/redirect'))).toMatchObject({ ok: true, status_code: 200, redirects: 1 });
    expect(await run(assignment('/redirect', { request: request({ follow_redirects: false }) }))).toMatchObject({ ok: true, status_code: 302, redirects: 0 });
    const asserted = await run(assignment('/redirect', { request: request({ follow_redirects: false }), assertions: [assertion('status_code', 'equals', '200')] }));
    expect(asserted).toMatchObject({ ok: false, phase: 'assertion', error: 'status_code 302, expected equals 200' });
  });

  it('sends secret headers, Authorization, Cookie and Proxy-Authorization only to the origin they were written for', async () => {
    const headers = [
      { name: 'Authorization', value: 'Bearer top', secret: false }, { name: 'Cookie', value: 'sid=1', secret: false },
      { name: 'Proxy-Authorization', value: 'Basic eA==', secret: false }, { name: 'X-Api-Key', value: 'k-secret', secret: true },
      { name: 'X-Trace', value: 'plain', secret: false },
    ];
    // Same origin: everything follows the redirect.
    seen = [];
    expect(await run(assignment('/redirect', { request: request({ headers }) }))).toMatchObject({ ok: true, redirects: 1 });
    expect(seen[1].headers).toMatchObject({ authorization: 'Bearer top', cookie: 'sid=1', 'proxy-authorization': 'Basic eA==', 'x-api-key': 'k-secret', 'x-trace': 'plain' });
    // Another origin (another port): the first hop gets them, the second none of the credentials.
    seen = [];
    otherSeen = [];
    expect(await run(assignment('/elsewhere', { request: request({ headers }) }))).toMatchObject({ ok: true, status_code: 200, redirects: 1 });
    expect(seen[0].headers).toMatchObject({ authorization: 'Bearer top', 'x-api-key': 'k-secret' });
    expect(otherSeen).toHaveLength(1);
    for (const name of ['authorization', 'cookie', 'proxy-authorization', 'x-api-key']) expect(otherSeen[0][name]).toBeUndefined();
    expect(otherSeen[0]['x-trace']).toBe('plain');
  });

  it('drops the credentials when an https redirect leads to plain http', async () => {
    const { makeCa, makeCert } = await import('../../../../tests/helpers/targets');
    const ca = makeCa();
    const tlsServer = https.createServer(makeCert({ ca }), (_req, res) => void res.writeHead(301, { location: `${otherBase}/plain` }).end());
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    try {
      otherSeen = [];
      const url = `https://localhost:${(tlsServer.address() as AddressInfo).port}/`;
      const headers = [{ name: 'Authorization', value: 'Bearer top', secret: false }, { name: 'X-Api-Key', value: 'k-secret', secret: true }];
      expect(await httpProber.probe(assignment('/', { url, request: request({ headers }) }), { ...opts, extraCa: [ca.cert] })).toMatchObject({ ok: true, redirects: 1 });
      expect(otherSeen).toHaveLength(1);
      expect(otherSeen[0].authorization).toBeUndefined();
      expect(otherSeen[0]['x-api-key']).toBeUndefined();
    } finally {
      await new Promise<void>((r) => tlsServer.close(() => r()));
    }
  });

  it('a POST answered 303 continues as a GET without its body', async () => {
    seen = [];
    const r = await run(assignment('/see-other', { request: request({ method: 'POST', body: 'data' }) }));
    expect(r).toMatchObject({ ok: true, redirects: 1 });
    expect(seen.map((s) => [s.method, s.body])).toEqual([['POST', 'data'], ['GET', '']]);
  });

  it('times out after the assignment timeout', async () => {
    const r = await httpProber.probe(assignment('/slow', { request: request() }), { ...opts, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, phase: 'timeout' });
    expect(r.error).toMatch(/timed out after 300 ms/);
  });
});

describe('http check assertions', () => {
  it.each([
    ['status_code equals', '/unavailable', assertion('status_code', 'equals', '200'), 'status_code 503, expected equals 200'],
    ['status_code less_than', '/unavailable', assertion('status_code', 'less_than', '500'), 'status_code 503, expected less_than 500'],
    ['body contains', '/unavailable', assertion('body', 'contains', 'ok'), 'body does not contain "ok"'],
    ['body not_contains', '/unavailable', assertion('body', 'not_contains', 'maint'), 'body contains "maint"'],
    ['body matches', '/unavailable', assertion('body', 'matches', '^up'), 'body does not match "^up"'],
    ['json_body equals', '/json', assertion('json_body', 'equals', 'down', '$.status'), '$.status "ok", expected equals "down"'],
    ['json_body array index', '/json', assertion('json_body', 'equals', 'zz', '$.items[1].id'), '$.items[1].id "b2", expected equals "zz"'],
    ['json_body number', '/json', assertion('json_body', 'greater_than', '5', '$.count'), '$.count 2, expected greater_than 5'],
    ['json_body missing', '/json', assertion('json_body', 'equals', 'x', '$.nope'), '$.nope not found in the body'],
    ['json_body on text', '/unavailable', assertion('json_body', 'equals', 'x', '$.status'), 'body is not JSON'],
    ['header equals', '/json', assertion('header', 'equals', '3.0', 'X-Version'), 'header x-version "2.1", expected equals "3.0"'],
    ['header missing', '/json', assertion('header', 'contains', 'x', 'X-Missing'), 'header x-missing missing'],
    ['response_time less_than', '/json', assertion('response_time', 'less_than', '0'), /^response_time [\d.]+, expected less_than 0$/],
  ] as const)('%s fails with a readable reason', async (_name, path, a, reason) => {
    const r = await run(assignment(path, { assertions: [a] }));
    expect(r).toMatchObject({ ok: false, phase: 'assertion' });
    expect(r.error).toMatch(typeof reason === 'string' ? new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : reason);
  });

  it('passing assertions make the check up; they decide over the status (an expected 503 is up)', async () => {
    const all = [
      assertion('status_code', 'equals', '200'), assertion('json_body', 'equals', 'ok', '$.status'), assertion('json_body', 'equals', 'a1', "$.items[0]['id']"),
      assertion('header', 'contains', '2.', 'x-version'), assertion('body', 'matches', '"count":\\s*2'), assertion('response_time', 'less_than', '5000'),
      assertion('body', 'not_contains', 'error'), assertion('status_code', 'not_equals', '500'),
    ];
    expect(await run(assignment('/json', { assertions: all }))).toMatchObject({ ok: true, phase: '', error: '', status_code: 200 });
    expect(await run(assignment('/unavailable', { assertions: [assertion('status_code', 'equals', '503')] }))).toMatchObject({ ok: true, status_code: 503 });
  });

  it('marks a status outside 2xx that the assertions accept as asserted, so it counts up everywhere; a 2xx they accept stays plain', async () => {
    const down = (r: Awaited<ReturnType<typeof run>>) => isDownResult({ ok: r.ok ?? false, status_code: r.status_code ?? 0, phase: r.phase ?? '' });
    const expected503 = await run(assignment('/unavailable', { assertions: [assertion('status_code', 'equals', '503')] }));
    expect(expected503).toMatchObject({ ok: true, phase: 'asserted', error: '', status_code: 503 });
    expect(down(expected503)).toBe(false);
    const plain = await run(assignment('/json', { assertions: [assertion('status_code', 'equals', '200')] }));
    expect(plain).toMatchObject({ ok: true, phase: '', status_code: 200 });
    const failedOn200 = await run(assignment('/json', { assertions: [assertion('body', 'contains', 'missing')] }));
    expect(failedOn200).toMatchObject({ ok: false, phase: 'assertion', status_code: 200 });
    expect(down(failedOn200)).toBe(true);
    // Without assertions a 503 is down, as before.
    expect(down(await run(assignment('/unavailable')))).toBe(true);
  });

  it('the first failing assertion is the reason', async () => {
    const r = await run(assignment('/json', { assertions: [assertion('status_code', 'equals', '200'), assertion('body', 'contains', 'missing'), assertion('status_code', 'equals', '201')] }));
    expect(r.error).toBe('body does not contain "missing"');
  });

  it('reads a body past the agent cap for a contains (up to 256 kB) without failing the check', async () => {
    const r = await run(assignment('/big', { assertions: [assertion('body', 'contains', 'xxx')] }));
    expect(r).toMatchObject({ ok: true });
  });

  it('a catastrophic regex is stopped by its time bound', async () => {
    const slow = await run(assignment('/echo', { request: request({ method: 'POST', body: `${'a'.repeat(40)}!` }), assertions: [assertion('body', 'matches', '(a+)+$')] }));
    expect(slow).toMatchObject({ ok: false, phase: 'assertion', error: 'body regex "(a+)+$" took too long' });
  });

  it('a connection failure stays a connection failure (assertions need an answer)', async () => {
    const r = await httpProber.probe(assignment('/', { url: 'http://127.0.0.1:1/', assertions: [assertion('status_code', 'equals', '200')] }), opts);
    expect(r).toMatchObject({ ok: false, phase: 'connect', error: 'connection refused' });
  });
});

describe('http check cert_days_left assertion (https)', () => {
  it('reads the certificate of the final https server', async () => {
    const { startTargets } = await import('../../../../tests/helpers/targets');
    const t = await startTargets();
    try {
      const tlsOpts = { ...opts, extraCa: [t.caPem] };
      const https = (url: string, a: AssertionSpec[]) => httpProber.probe(assignment('/', { url, assertions: a }), tlsOpts);
      expect(await https(t.https.valid, [assertion('cert_days_left', 'greater_than', '30')])).toMatchObject({ ok: true });
      const r = await https(t.https.valid, [assertion('cert_days_left', 'greater_than', '100')]);
      expect(r).toMatchObject({ ok: false, phase: 'assertion' });
      expect(r.error).toMatch(/^cert_days_left (89|90)(\.\d+)?, expected greater_than 100$/);
      // plain http has no certificate: the assertion cannot pass
      expect(await run(assignment('/json', { assertions: [assertion('cert_days_left', 'greater_than', '1')] }))).toMatchObject({ ok: false, error: 'cert_days_left not available' });
    } finally {
      await t.close();
    }
  });
});
