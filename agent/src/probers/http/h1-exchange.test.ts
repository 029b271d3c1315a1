// The check's own HTTP/1.1 path (llhttp driven directly) against a loopback server that answers
// byte for byte as scripted, split over several writes: framing (chunked, until close, 1xx, HEAD,
// 204), the body cap, and every way a response can break. Each case is also read by an undici
// Client (the path the checks used before) and must come out with the same status, body size and
// error text, so a check reads the same whichever path made it.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostResolver } from '../resolve';
import { describeNetError } from '../types';
import { probeHttp, type HttpProbeOptions } from './http-probe';
import { requestHead } from './h1-exchange';

// a step writes its bytes, waits, ends the connection or resets it
type Script = Array<string | Buffer | { pause: number } | { close: 'end' | 'reset' }>;
const SCRIPTS: Record<string, Script> = {
  '/chunked': ['HTTP/1.1 200 OK\r\nTransfer-Enc', 'oding: chunked\r\nX-Part: a\r\n\r\n5\r\nhel', { pause: 20 }, 'lo\r\n6\r\n world\r\n0\r\n\r\n'],
  '/until-close': ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabc', { pause: 20 }, 'def', { close: 'end' }],
  '/early-hints': ['HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n', { pause: 20 }, 'HTTP/1.1 201 Created\r\nContent-Length: 2\r\nLocation: /made\r\n\r\nok'],
  '/no-content': ['HTTP/1.1 204 No Content\r\n\r\n'],
  '/head': ['HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n'],
  '/split-header': ['HTTP/1.1 200 OK\r\nX-Ver', { pause: 20 }, 'sion: 2', { pause: 20 }, '.1\r\nx-version: 3\r\nContent-Length: 0\r\n\r\n'],
  '/short-close': ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nabc', { close: 'end' }],
  '/short-keepalive': ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', { close: 'end' }],
  '/nothing': [{ close: 'end' }],
  '/garbage': ['NOT HTTP AT ALL\r\n\r\n'],
  '/huge-headers': [`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`],
  '/reset': ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc', { pause: 20 }, { close: 'reset' }],
  '/unasked-continue': ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'],
  '/big': ['HTTP/1.1 200 OK\r\nContent-Length: 300000\r\n\r\n', Buffer.alloc(100_000, 120), { pause: 20 }, Buffer.alloc(100_000, 120), { pause: 20 }, Buffer.alloc(100_000, 120)],
  '/status-500-chunked': ['HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n4\r\noops\r\n0\r\n\r\n'],
};

let server: net.Server;
let base: string;
const requests: string[] = [];
const opts = (): HttpProbeOptions => ({ timeoutMs: 3000, resolver: createHostResolver(), allowPrivateTargets: true });

beforeAll(async () => {
  server = net.createServer((sock) => {
    let got = '';
    sock.on('error', () => {});
    const play = async (script: Script): Promise<void> => {
      for (const step of script) {
        if (sock.destroyed) return;
        if (typeof step === 'string' || Buffer.isBuffer(step)) sock.write(step);
        else if ('pause' in step) await new Promise((r) => setTimeout(r, step.pause));
        else if (step.close === 'end') sock.end();
        else sock.resetAndDestroy();
      }
    };
    sock.on('data', (d) => {
      if (got.includes('\r\n\r\n')) return;
      got += d.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      requests.push(got);
      void play(SCRIPTS[got.split(' ')[1]] ?? ['HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n']);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The same request through an undici Client: status and body bytes, or the error as the probe words it. */
async function viaUndici(path: string, method = 'GET'): Promise<{ status: number; bytes: number } | { error: string }> {
  const client = new Client(base, { pipelining: 1 });
  try {
    const res = await client.request({ path, method });
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    return { status: res.statusCode, bytes };
  } catch (err) {
    return { error: describeNetError(err) };
  } finally {
    await client.destroy().catch(() => {});
  }
}

describe('the HTTP/1.1 exchange of a check', () => {
  it.each([
    ['/chunked', { ok: true, status_code: 200, body_bytes: 11 }],
    ['/until-close', { ok: true, status_code: 200, body_bytes: 6 }],
    ['/early-hints', { ok: true, status_code: 201, body_bytes: 2 }],
    ['/no-content', { ok: true, status_code: 204, body_bytes: 0 }],
    ['/split-header', { ok: true, status_code: 200, body_bytes: 0 }],
    ['/status-500-chunked', { ok: false, phase: 'http', error: 'HTTP 500', status_code: 500, body_bytes: 4 }],
  ] as const)('reads %s as undici does', async (path, expected) => {
    const r = await probeHttp(`${base}${path}`, opts());
    expect(r).toMatchObject({ phase: '', error: '', ...expected });
    expect(await viaUndici(path)).toEqual({ status: expected.status_code, bytes: expected.body_bytes });
  });

  it.each([
    ['/short-close', 'Response body length does not match content-length header'],
    ['/short-keepalive', 'connection closed before a complete response'],
    ['/nothing', 'connection closed before a complete response'],
    ['/garbage', /^Response does not match the HTTP\/1\.1 protocol \(.+\)$/],
    ['/huge-headers', 'Headers Overflow Error'],
    ['/reset', 'connection reset by peer'],
    ['/unasked-continue', 'connection closed before a complete response'],
  ] as const)('fails %s in phase http with the error text undici gives', async (path, error) => {
    const r = await probeHttp(`${base}${path}`, opts());
    expect(r).toMatchObject({ ok: false, phase: 'http' });
    expect(r.error).toMatch(typeof error === 'string' ? new RegExp(`^${error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : error);
    expect(await viaUndici(path)).toEqual({ error: r.error });
  });

  it('keeps the headers (repeated ones joined) and the body of a chunked response for assertions', async () => {
    const chunked = await probeHttp(`${base}/chunked`, { ...opts(), keepBodyBytes: 1024 });
    expect(chunked).toMatchObject({ body: 'hello world', headers: { 'transfer-encoding': 'chunked', 'x-part': 'a' } });
    const split = await probeHttp(`${base}/split-header`, { ...opts(), keepBodyBytes: 1024 });
    expect(split.headers).toMatchObject({ 'x-version': '2.1, 3' });
    // the 103's headers are not the answer's
    const hints = await probeHttp(`${base}/early-hints`, { ...opts(), keepBodyBytes: 1024, followRedirects: false });
    expect(hints.headers?.link).toBeUndefined();
    expect(hints).toMatchObject({ body: 'ok', status_code: 201 });
  });

  it('reads no body after HEAD whatever content-length says', async () => {
    const r = await probeHttp(`${base}/head`, { ...opts(), method: 'HEAD' });
    expect(r).toMatchObject({ ok: true, status_code: 200, body_bytes: 0 });
    expect(requests.at(-1)).toMatch(/^HEAD \/head HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nconnection: close\r\n/);
  });

  it('stops reading at the body cap and keeps only the asked bytes', async () => {
    const r = await probeHttp(`${base}/big`, { ...opts(), maxBodyBytes: 150_000, keepBodyBytes: 10 });
    expect(r).toMatchObject({ ok: true, status_code: 200, body_truncated: true, body: 'xxxxxxxxxx' });
    expect(r.body_bytes).toBeGreaterThanOrEqual(150_000);
    expect(r.body_bytes).toBeLessThan(300_000);
  });

  it('writes the request as undici does: host, connection, the headers, content-length for a body', async () => {
    await probeHttp(`${base}/no-content?q=1`, { ...opts(), method: 'POST', body: 'héllo', headers: [{ name: 'X-Trace', value: 'abc' }] });
    expect(requests.at(-1)).toMatch(
      /^POST \/no-content\?q=1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nconnection: keep-alive\r\nuser-agent: Upfleet-Agent\/0\.1\r\naccept: \*\/\*\r\nx-trace: abc\r\ncontent-length: 6\r\n\r\n(hÃ©llo)?$/,
    );
    await probeHttp(`${base}/no-content`, { ...opts(), method: 'PUT' });
    expect(requests.at(-1)).toMatch(/content-length: 0\r\n\r\n$/);
  });

  it('refuses a header value with a line break before connecting, in undici words', async () => {
    expect(requestHead({ method: 'GET', path: '/', host: 'h', headers: { 'x-a': 'v\r\nevil: 1' } })).toMatchObject({ message: 'invalid x-a header' });
    expect(requestHead({ method: 'GET', path: '/', host: 'h', headers: { 'bad name': 'v' } })).toMatchObject({ message: 'invalid header key' });
    const before = requests.length;
    const r = await probeHttp(`${base}/no-content`, { ...opts(), headers: [{ name: 'X-A', value: 'v\nx' }] });
    expect(r).toMatchObject({ ok: false, error: 'invalid x-a header', status_code: 0 });
    expect(requests.length).toBe(before);
  });

  it('runs thousands of checks on one thread, responses ending inside llhttp callbacks, each parser freed only once llhttp has returned', async () => {
    // every kind of ending at once: complete, capped, refused as bad, broken; the shared llhttp
    // memory must come out intact (a parser freed while llhttp still wrote to it broke later ones)
    const paths = ['/chunked', '/until-close', '/early-hints', '/garbage', '/unasked-continue', '/big', '/status-500-chunked'];
    const expected = await Promise.all(paths.map((p) => probeHttp(`${base}${p}`, { ...opts(), maxBodyBytes: 150_000 })));
    for (let round = 0; round < 40; round++) {
      const got = await Promise.all(paths.flatMap((p) => Array.from({ length: 5 }, () => probeHttp(`${base}${p}`, { ...opts(), maxBodyBytes: 150_000 }))));
      got.forEach((r, i) => expect([r.ok, r.status_code, r.error]).toEqual([expected[Math.floor(i / 5)].ok, expected[Math.floor(i / 5)].status_code, expected[Math.floor(i / 5)].error]));
    }
  }, 120_000);
});
