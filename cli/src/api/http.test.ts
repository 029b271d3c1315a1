import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonApi } from './http';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r));
});

/** A local server answering each request with the next scripted status (429s carry Retry-After: 7). */
async function serve(statuses: number[]) {
  const seen: string[] = [];
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const status = statuses.shift() ?? 200;
    res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '7' } : {}) });
    res.end(JSON.stringify(status === 200 ? { success: true, data: { ok: 1 } } : { success: false, error: 'Rate limit of 600 requests a minute reached for this API key' }));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('createJsonApi', () => {
  it('waits out a 429 for its Retry-After and sends the same request again', async () => {
    const { url, seen } = await serve([429, 429, 200]);
    const waits: number[] = [];
    const request = createJsonApi({ server: url, credential: () => 'upk_x', rejected: () => 'no', rateLimitRetries: 3, sleep: async (ms) => void waits.push(ms) });
    await expect(request('PUT', '/api/users/endpoints/1', { name: 'x' })).resolves.toEqual({ ok: 1 });
    expect(waits).toEqual([7000, 7000]);
    expect(seen).toEqual(['PUT /api/users/endpoints/1', 'PUT /api/users/endpoints/1', 'PUT /api/users/endpoints/1']);
  });

  it('fails with the server\'s text once the retries are used up, and at once without retries', async () => {
    const { url, seen } = await serve([429, 429, 429]);
    const waits: number[] = [];
    const request = createJsonApi({ server: url, credential: () => 'upk_x', rejected: () => 'no', rateLimitRetries: 1, sleep: async (ms) => void waits.push(ms) });
    await expect(request('GET', '/api/users/dashboard')).rejects.toMatchObject({ code: 'rejected', status: 429, message: 'Rate limit of 600 requests a minute reached for this API key' });
    expect(waits).toEqual([7000]);
    const admin = createJsonApi({ server: url, credential: () => 't', rejected: () => 'no' });
    await expect(admin('GET', '/api/admin/users')).rejects.toMatchObject({ status: 429 });
    expect(seen).toHaveLength(3);
  });
});
