// API keys on the real control plane: shown once, hashed at rest, acting as their owner on the data
// routes only, gated by the plan's api_access, revocable at once, and limited per key per minute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { sha256 } from '../lib/crypto';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const endpointBody = (over: Record<string, unknown> = {}) => ({
  name: 'Example', url: 'https://example.com/', regions: ['EU-Germany'], response_code: true, ...over,
});

/** A Pro user (api_access) with a session token and one fresh key. */
async function proUserWithKey(harness = h) {
  const s = await harness.signup();
  await harness.setPackage(s.user.email, 'Pro');
  const created = await harness.call('POST', '/api/users/api-keys', { name: 'ci' }, s.token);
  expect(created.status).toBe(201);
  return { ...s, key: created.body.data.key as string, keyId: created.body.data.id as number };
}

describe('creating and listing keys', () => {
  it('shows the upk_ key once and stores only its hash', async () => {
    const { token, key, keyId } = await proUserWithKey();
    expect(key).toMatch(/^upk_[A-Za-z0-9_-]{32}$/);
    const list = await h.call('GET', '/api/users/api-keys', undefined, token);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ id: keyId, name: 'ci', prefix: key.slice(0, 12), created_at: expect.any(String), last_used_at: null }]);
    expect(JSON.stringify(list.body)).not.toContain(key);
    const rows = h.cp.db.prepare('SELECT * FROM api_keys WHERE id = ?').all(keyId) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(sha256(key));
    expect(JSON.stringify(rows)).not.toContain(key.slice(12));
  });

  it('refuses a blank name with 400 and creates nothing', async () => {
    const s = await h.signup();
    await h.setPackage(s.user.email, 'Business');
    const r = await h.call('POST', '/api/users/api-keys', { name: '  ' }, s.token);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'Name is required' });
    expect((await h.call('GET', '/api/users/api-keys', undefined, s.token)).body.data).toEqual([]);
  });

  it('allows at most 20 keys per user', async () => {
    const s = await h.signup();
    await h.setPackage(s.user.email, 'Pro');
    for (let i = 0; i < 20; i++) expect((await h.call('POST', '/api/users/api-keys', { name: `k${i}` }, s.token)).status).toBe(201);
    const r = await h.call('POST', '/api/users/api-keys', { name: 'one too many' }, s.token);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(MESSAGES.tooManyApiKeys);
    expect((await h.call('GET', '/api/users/api-keys', undefined, s.token)).body.data).toHaveLength(20);
  });
});

describe('a key acts as its owner on the data routes', () => {
  it('reads and changes the owner\'s endpoints, thresholds, alert methods and catalogue, and records its last use', async () => {
    const { token, key } = await proUserWithKey();
    expect((await h.call('GET', '/api/users/dashboard', undefined, key)).body.data.package_name).toBe('Pro');
    const created = await h.call('POST', '/api/users/endpoints', endpointBody({ response_time: true }), key);
    expect(created.status).toBe(201);
    const id = created.body.data.url_id;
    expect((await h.call('PUT', `/api/users/endpoints/${id}`, endpointBody({ name: 'Renamed' }), key)).body.data.name).toBe('Renamed');
    expect((await h.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: false }, key)).body.data).toEqual({ url_id: id, monitoring_enabled: false });
    const thresholds = await h.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, {
      alert_thresholds: [{ monitor_type_id: 3, threshold_value: 500, threshold_operator: '>=', is_enabled: true, region_id: null }],
    }, key);
    expect(thresholds.status).toBe(200);
    expect((await h.call('GET', `/api/users/endpoints/${id}/alert-thresholds`, undefined, key)).body.data[0]).toMatchObject({ threshold_value: 500 });
    // The session sees what the key did.
    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token);
    expect(list.body.data.map((e: { name: string }) => e.name)).toEqual(['Renamed']);
    expect((await h.call('GET', '/api/users/regions', undefined, key)).status).toBe(200);
    expect((await h.call('GET', '/api/users/monitor-types', undefined, key)).status).toBe(200);
    const method = await h.call('POST', '/api/users/alert-methods', { platform: 'email', platform_config: { email_address: 'ops@example.com' } }, key);
    expect(method.status).toBe(201);
    expect((await h.call('GET', '/api/users/alert-methods', undefined, key)).body.data).toHaveLength(1);
    expect((await h.call('DELETE', `/api/users/alert-methods/${method.body.data.alert_method_id}`, undefined, key)).status).toBe(200);
    // Graphs pass authentication (this harness has no results store, so the store's 503 answers).
    expect((await h.call('GET', `/api/graphs/endpoint/${id}`, undefined, key)).status).toBe(503);
    expect((await h.call('DELETE', `/api/users/endpoints/${id}`, undefined, key)).status).toBe(200);
    const keys = await h.call('GET', '/api/users/api-keys', undefined, token);
    expect(Date.parse(keys.body.data[0].last_used_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers 404 for another user\'s ids, exactly as for ids that do not exist', async () => {
    const a = await proUserWithKey();
    const b = await proUserWithKey();
    const theirs = (await h.call('POST', '/api/users/endpoints', endpointBody(), b.token)).body.data.url_id;
    const theirMethod = (await h.call('POST', '/api/users/alert-methods', { platform: 'email', platform_config: { email_address: 'b@example.com' } }, b.token)).body.data.alert_method_id;
    const attempts: Array<[string, string, unknown?]> = [
      ['PUT', `/api/users/endpoints/${theirs}`, endpointBody({ name: 'stolen' })],
      ['PATCH', `/api/users/endpoints/${theirs}/toggle`, {}],
      ['DELETE', `/api/users/endpoints/${theirs}`],
      ['GET', `/api/users/endpoints/${theirs}/alert-thresholds`],
      ['PUT', `/api/users/endpoints/${theirs}/alert-thresholds`, { alert_thresholds: [] }],
      ['PUT', `/api/users/alert-methods/${theirMethod}`, { is_enabled: false }],
      ['DELETE', `/api/users/alert-methods/${theirMethod}`],
      ['GET', `/api/graphs/endpoint/${theirs}?hours=1`],
    ];
    for (const [method, path, body] of attempts) {
      const r = await h.call(method, path, body, a.key);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, a.key)).body.data).toEqual([]);
    const still = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, b.token);
    expect(still.body.data).toMatchObject([{ url_id: theirs, name: 'Example', monitoring_enabled: true }]);
    // Nor can one user revoke another's key.
    expect((await h.call('DELETE', `/api/users/api-keys/${b.keyId}`, undefined, a.token)).status).toBe(404);
    expect((await h.call('GET', '/api/users/dashboard', undefined, b.key)).status).toBe(200);
  });

  it('refuses keys on account routes with 403', async () => {
    const { key } = await proUserWithKey();
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/auth/validate-session'], ['POST', '/api/auth/logout'],
      ['POST', '/api/2fa/setup'], ['GET', '/api/2fa/status'], ['POST', '/api/2fa/disable'],
      ['GET', '/api/users/profile'], ['PUT', '/api/users/profile', { username: 'hijack', email: 'h@example.com' }],
      ['POST', '/api/users/change-password', { current_password: 'correct horse', new_password: 'another horse' }],
      ['GET', '/api/users/api-keys'], ['POST', '/api/users/api-keys', { name: 'more' }], ['DELETE', '/api/users/api-keys/1'],
      ['GET', '/api/billing/subscription'], ['GET', '/api/billing/notices'],
      ['POST', '/api/billing/create-checkout-session', { priceId: 'price_x', packageId: 3, packageName: 'Pro' }],
    ];
    for (const [method, path, body] of routes) {
      const r = await h.call(method, path, body, key);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toEqual({ success: false, error: MESSAGES.apiKeyNotAllowed });
    }
  });

  it('refuses an unknown key and a revoked key at once with 401', async () => {
    const { token, key, keyId } = await proUserWithKey();
    expect((await h.call('GET', '/api/users/dashboard', undefined, 'upk_notarealkey')).status).toBe(401);
    expect((await h.call('GET', '/api/users/dashboard', undefined, key)).status).toBe(200);
    expect((await h.call('DELETE', `/api/users/api-keys/${keyId}`, undefined, token)).body.data).toEqual({ id: keyId });
    const after = await h.call('GET', '/api/users/dashboard', undefined, key);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ success: false, error: 'Invalid API key' });
    expect((await h.call('GET', '/api/users/api-keys', undefined, token)).body.data).toEqual([]);
  });
});

describe('plan gating', () => {
  it('refuses to create a key without api_access, with the SPEC-style message', async () => {
    const s = await h.signup(); // Free
    const r = await h.call('POST', '/api/users/api-keys', { name: 'ci' }, s.token);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, error: 'API access is not available in your current plan. Please upgrade to enable this feature.' });
    await h.setPackage(s.user.email, 'Starter'); // paid, but without api_access
    expect((await h.call('POST', '/api/users/api-keys', { name: 'ci' }, s.token)).status).toBe(403);
    expect(h.cp.db.prepare('SELECT COUNT(*) FROM api_keys WHERE user_id = ?').pluck().get(s.user.id)).toBe(0);
  });

  it('stops existing keys after a downgrade and lets them work again after an upgrade', async () => {
    const { user, key } = await proUserWithKey();
    await h.setPackage(user.email, 'Free');
    const r = await h.call('GET', '/api/users/dashboard', undefined, key);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe(MESSAGES.apiAccessNotInPlan);
    await h.setPackage(user.email, 'Business');
    expect((await h.call('GET', '/api/users/dashboard', undefined, key)).status).toBe(200);
  });
});

describe('per-key rate limit', () => {
  let small: Harness;
  beforeAll(async () => {
    small = await startHarness({ RATE_LIMIT_API_KEY_PER_MINUTE: '4' });
  });
  afterAll(async () => {
    await small.close();
  });

  it('sends RateLimit-* on every keyed answer and 429 with Retry-After past the allowance', async () => {
    const a = await proUserWithKey(small);
    const b = await proUserWithKey(small);
    // Start at the top of a fresh minute window so the count cannot reset mid-test.
    const first = await small.call('GET', '/api/users/dashboard', undefined, a.key);
    const reset = Number(first.headers.get('ratelimit-reset'));
    let seen = [first];
    if (reset < 20) {
      await new Promise((r) => setTimeout(r, reset * 1000 + 200));
      seen = [await small.call('GET', '/api/users/dashboard', undefined, a.key)];
    }
    seen.push(await small.call('GET', '/api/users/endpoints/999999/alert-thresholds', undefined, a.key)); // a 404 is a keyed answer too
    seen.push(await small.call('GET', '/api/users/regions', undefined, a.key));
    seen.push(await small.call('GET', '/api/users/monitor-types', undefined, a.key));
    expect(seen.map((r) => r.status)).toEqual([200, 404, 200, 200]);
    expect(seen.map((r) => r.headers.get('ratelimit-limit'))).toEqual(['4', '4', '4', '4']);
    expect(seen.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);
    for (const r of seen) expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);

    const limited = await small.call('GET', '/api/users/dashboard', undefined, a.key);
    expect(limited.status).toBe(429);
    expect(limited.body.success).toBe(false);
    expect(limited.body.error).toMatch(/Rate limit of 4 requests a minute/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Per key: the other user's key and the owner's own session are not limited by it.
    expect((await small.call('GET', '/api/users/dashboard', undefined, b.key)).status).toBe(200);
    const session = await small.call('GET', '/api/users/dashboard', undefined, a.token);
    expect(session.status).toBe(200);
    expect(session.headers.get('ratelimit-limit')).toBeNull();
  });
});
