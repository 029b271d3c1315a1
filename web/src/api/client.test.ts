// @vitest-environment node
// The request helper against a real HTTP server on port 0 (Node's fetch), not a stub.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient, AuthenticationError, type TokenStore } from './client';

interface Seen { method: string; url: string; auth: string | undefined; body: string }

let server: http.Server;
let base = '';
let seen: Seen[] = [];
let validAccess = 'fresh';
let refreshWorks = true;
let refreshCount = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      const json = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.url === '/api/auth/refresh') {
        refreshCount += 1;
        // Slow enough that concurrent 401s overlap with it.
        setTimeout(() => {
          if (refreshWorks && JSON.parse(body).refreshToken === 'r1') json(200, { success: true, data: { accessToken: validAccess, refreshToken: 'r2' } });
          else json(401, { success: false, error: 'Invalid refresh token' });
        }, 30);
        return;
      }
      if (req.headers.authorization !== `Bearer ${validAccess}`) return json(401, { success: false, error: 'Unauthorized' });
      if (req.url === '/api/shot.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      }
      if (req.url === '/api/gone.png') return json(404, { success: false, error: 'Screenshot not found' });
      json(200, { success: true, data: { method: req.method, body: body ? JSON.parse(body) : null } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function setup(access: string) {
  const tokens = { access: access as string | null, refresh: 'r1' as string | null };
  const store: TokenStore = {
    getAccessToken: () => tokens.access,
    getRefreshToken: () => tokens.refresh,
    setTokens: (a, r) => {
      tokens.access = a;
      if (r) tokens.refresh = r;
    },
  };
  let failures = 0;
  const client = createApiClient({
    tokens: store,
    baseUrl: base,
    onAuthFailure: () => {
      failures += 1;
      tokens.access = tokens.refresh = null;
    },
  });
  return { client, tokens, failures: () => failures };
}

beforeEach(() => {
  seen = [];
  refreshWorks = true;
  refreshCount = 0;
  validAccess = 'fresh';
});

describe('authorised request helper', () => {
  it('fetches an image as a Blob with the bearer token, refreshing once on a 401; a missing one is null', async () => {
    const { client, tokens } = setup('stale');
    const blob = await client.blob!('/api/shot.png');
    expect(blob?.type).toBe('image/png');
    expect([...new Uint8Array(await blob!.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(refreshCount).toBe(1);
    expect(tokens.access).toBe('fresh');
    expect(seen.filter((s) => s.url === '/api/shot.png').map((s) => s.auth)).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(await client.blob!('/api/gone.png')).toBeNull();
  });

  it('sends the bearer token and JSON body for GET, POST, PUT, PATCH and DELETE', async () => {
    const { client } = setup('fresh');
    for (const [m, call] of [
      ['GET', () => client.get('/api/x')],
      ['POST', () => client.post('/api/x', { a: 1 })],
      ['PUT', () => client.put('/api/x', { a: 2 })],
      ['PATCH', () => client.patch('/api/x', { a: 3 })],
      ['DELETE', () => client.del('/api/x')],
    ] as const) {
      const res = await call();
      expect(res.success).toBe(true);
      expect(res.success && (res.data as { method: string }).method).toBe(m);
    }
    expect(seen.every((s) => s.auth === 'Bearer fresh')).toBe(true);
    expect(seen[1].body).toBe('{"a":1}');
  });

  it('on 401 refreshes once, stores the new tokens and retries the request', async () => {
    const { client, tokens } = setup('stale');
    const res = await client.put('/api/users/profile', { username: 'bob' });
    expect(res.success).toBe(true);
    expect(seen.map((s) => s.url)).toEqual(['/api/users/profile', '/api/auth/refresh', '/api/users/profile']);
    expect(seen[2].auth).toBe('Bearer fresh');
    expect(seen[2].body).toBe('{"username":"bob"}');
    expect(tokens).toEqual({ access: 'fresh', refresh: 'r2' });
  });

  it('shares one refresh between concurrent requests that got 401', async () => {
    const { client } = setup('stale');
    const results = await Promise.all([client.get('/api/a'), client.get('/api/b'), client.get('/api/c')]);
    expect(results.every((r) => r.success)).toBe(true);
    expect(refreshCount).toBe(1);
  });

  it("when the refresh fails clears the session, calls the auth-failure hook and throws 'Authentication failed'", async () => {
    refreshWorks = false;
    const { client, tokens, failures } = setup('stale');
    const err = await client.get('/api/users/dashboard').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as Error).message).toBe('Authentication failed');
    expect(failures()).toBe(1);
    expect(tokens.access).toBeNull();
    expect(seen.filter((s) => s.url === '/api/users/dashboard')).toHaveLength(1);
  });

  it('does not retry more than once when the retried request is still 401', async () => {
    // The token store drops the refreshed token, so the retry is refused again.
    const client = createApiClient({
      tokens: { getAccessToken: () => 'x', getRefreshToken: () => 'r1', setTokens: () => undefined },
      baseUrl: base,
      onAuthFailure: () => undefined,
    });
    const err = await client.get('/api/z').catch((e: unknown) => e);
    expect((err as Error).message).toBe('Authentication failed');
    expect(seen.filter((s) => s.url === '/api/z')).toHaveLength(2);
    expect(refreshCount).toBe(1);
  });

  it('returns failures of unauthenticated calls as data with their status, without refreshing', async () => {
    const { client } = setup('fresh');
    const res = await client.publicRequest('GET', '/api/nothing');
    expect(res.status).toBe(401);
    expect(res.success).toBe(false);
    expect(!res.success && res.error).toBe('Unauthorized');
    expect(refreshCount).toBe(0);
  });
});
