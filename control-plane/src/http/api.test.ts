import fs from 'node:fs';
import path from 'node:path';
import { authenticator } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
beforeAll(async () => {
  // No reuse grace here, so a replayed refresh token is treated as theft at once.
  h = await startHarness({ REFRESH_REUSE_GRACE_SECONDS: '0' });
});
afterAll(async () => {
  await h.close();
});

const endpointBody = (over: Record<string, unknown> = {}) => ({
  name: 'Example', url: 'https://example.com/', description: 'home page', regions: ['EU-Germany'],
  ping_host: false, cert_expiry: false, response_code: true, response_time: false, ...over,
});

describe('public catalogue', () => {
  it('lists the Free plan exactly as SPEC section 9 and three paid plans without Stripe prices', async () => {
    const r = await h.call('GET', '/api/public/packages');
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(4);
    const free = r.body.data[0];
    expect(free).toMatchObject({
      package_name: 'Free', price: 0, currency: 'EUR', max_endpoints: 10, check_frequency_seconds: 300, retention_days: 30,
      max_regions: 1, multi_region: false, response_code: true, response_time: false, ping_host: false, cert_expiry: false,
      ssl_monitoring: false, stripe_price_id: '',
    });
    expect(r.body.data.slice(1).every((p: any) => p.price > 0 && p.stripe_price_id === '')).toBe(true);
  });

  it('lists EU - Germany as the primary region among at least three', async () => {
    const r = await h.call('GET', '/api/public/regions');
    expect(r.body.data.length).toBeGreaterThanOrEqual(3);
    expect(r.body.data.filter((x: any) => x.primary_region)).toEqual([{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }]);
  });

  it('seeds the four monitor types with primary-region rules', async () => {
    const { token } = await h.signup();
    const r = await h.call('GET', '/api/users/monitor-types', undefined, token);
    const byCode = Object.fromEntries(r.body.data.map((t: any) => [t.type_code, t.requires_primary_region]));
    expect(byCode).toEqual({ ping_host: false, cert_expiry: true, response_code: true, response_time: false });
  });
});

describe('signup and login', () => {
  it('rejects bad signups with the SPEC messages and creates nothing', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ username: 'ab', email: 'a@b.co', password: 'longenough' }, 400, 'Username must be between 3 and 30 characters'],
      [{ username: 'x'.repeat(31), email: 'a@b.co', password: 'longenough' }, 400, 'Username must be between 3 and 30 characters'],
      [{ username: 'valid', email: 'not-an-email', password: 'longenough' }, 400, 'Please enter a valid email address'],
      [{ username: 'valid', email: 'a@b.co', password: 'short' }, 400, MESSAGES.passwordTooShort],
      [{ email: 'a@b.co', password: 'longenough' }, 400, 'Username is required'],
    ];
    for (const [body, status, error] of cases) {
      const r = await h.call('POST', '/api/auth/signup', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body).toEqual({ success: false, error });
    }
    const login = await h.call('POST', '/api/auth/login', { email: 'a@b.co', password: 'longenough' });
    expect(login.status).toBe(401);
  });

  it('refuses a second account with the same email (409) or username', async () => {
    const { user } = await h.signup();
    const r = await h.call('POST', '/api/auth/signup', { username: 'someoneelse', email: user.email.toUpperCase(), password: 'longenough' });
    expect(r.status).toBe(409);
    const r2 = await h.call('POST', '/api/auth/signup', { username: user.username, email: 'other@example.com', password: 'longenough' });
    expect(r2.status).toBe(409);
  });

  it('logs in with the right password and says "Invalid email or password" otherwise', async () => {
    const { user } = await h.signup();
    const ok = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.email).toBe(user.email);
    expect(ok.body.data.accessToken).toMatch(/^ey/);
    const bad = await h.call('POST', '/api/auth/login', { email: user.email, password: 'wrong horse' });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ success: false, error: 'Invalid email or password' });
    const unknown = await h.call('POST', '/api/auth/login', { email: 'nobody@example.com', password: 'wrong horse' });
    expect(unknown.body.error).toBe('Invalid email or password');
  });

  it('validates the session and rejects a missing or forged token', async () => {
    const { token, user } = await h.signup();
    const ok = await h.call('GET', '/api/auth/validate-session', undefined, token);
    expect(ok.body.data.username).toBe(user.username);
    expect((await h.call('GET', '/api/auth/validate-session')).status).toBe(401);
    const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await h.call('GET', '/api/auth/validate-session', undefined, forged)).status).toBe(401);
  });

  it('answers bad JSON and oversized bodies with a 4xx in the error shape', async () => {
    const bad = await h.call('POST', '/api/auth/login', '{"email":');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: 'Request body is not valid JSON' });
    const big = await h.call('POST', '/api/auth/login', { email: 'x@y.z', password: 'p'.repeat(100_000) });
    expect(big.status).toBe(413);
    expect(big.body.success).toBe(false);
  });
});

describe('refresh tokens', () => {
  it('rotates the refresh token and revokes the family when an old one is reused', async () => {
    const { refreshToken } = await h.signup();
    const first = await h.call('POST', '/api/auth/refresh', { refreshToken });
    expect(first.status).toBe(200);
    const next = first.body.data.refreshToken;
    expect(next).not.toBe(refreshToken);
    expect((await h.call('GET', '/api/auth/validate-session', undefined, first.body.data.accessToken)).status).toBe(200);
    // The old token again: reuse means theft, so the whole session ends.
    const reuse = await h.call('POST', '/api/auth/refresh', { refreshToken });
    expect(reuse.status).toBe(401);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: next })).status).toBe(401);
    expect((await h.call('GET', '/api/auth/validate-session', undefined, first.body.data.accessToken)).status).toBe(401);
  });

  it('logout revokes both the access token and the refresh token', async () => {
    const { token, refreshToken } = await h.signup();
    expect((await h.call('POST', '/api/auth/logout', undefined, token)).status).toBe(200);
    expect((await h.call('GET', '/api/users/dashboard', undefined, token)).status).toBe(401);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken })).status).toBe(401);
  });
});

describe('two-factor authentication', () => {
  it('sets up TOTP, then login needs a code; a wrong code and a used backup code are refused', async () => {
    const { token, user } = await h.signup();
    const setup = await h.call('POST', '/api/2fa/setup', undefined, token);
    expect(setup.status).toBe(200);
    const { secret, qrCodeUrl, backupCodes } = setup.body.data;
    expect(qrCodeUrl).toMatch(/^data:image\/png;base64,/);
    expect(backupCodes).toHaveLength(10);
    expect(new Set(backupCodes).size).toBe(10);
    expect((await h.call('GET', '/api/2fa/status', undefined, token)).body.data).toEqual({ enabled: false });

    const wrongVerify = await h.call('POST', '/api/2fa/verify', { token: '000000' === authenticator.generate(secret) ? '111111' : '000000' }, token);
    expect(wrongVerify.status).toBe(400);
    expect(wrongVerify.body.error).toBe('Invalid verification code');
    expect((await h.call('POST', '/api/2fa/verify', { token: authenticator.generate(secret) }, token)).status).toBe(200);
    expect((await h.call('GET', '/api/2fa/status', undefined, token)).body.data).toEqual({ enabled: true });

    const noCode = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse' });
    expect(noCode.status).toBe(401);
    expect(noCode.body.requires2FA).toBe(true);
    expect(noCode.body.data).toBeUndefined();

    const wrong = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse', two_factor_code: '12345x' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('Invalid verification code');

    // The code used to verify cannot sign in again (replay); the next time step's code can.
    const nextCode = authenticator.clone({ epoch: Date.now() + 30_000 }).generate(secret);
    const good = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse', two_factor_code: nextCode });
    expect(good.status).toBe(200);
    expect(good.body.data.accessToken).toMatch(/^ey/);

    const backup = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse', two_factor_code: backupCodes[3] });
    expect(backup.status).toBe(200);
    const again = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse', two_factor_code: backupCodes[3] });
    expect(again.status).toBe(401);
    expect(again.body.error).toBe('Invalid verification code');

    expect((await h.call('POST', '/api/2fa/disable', { password: 'correct horse' }, token)).status).toBe(200);
    const plain = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse' });
    expect(plain.status).toBe(200);
  });

  it('stores the TOTP secret encrypted, not in clear', async () => {
    const { token } = await h.signup();
    const { secret } = (await h.call('POST', '/api/2fa/setup', undefined, token)).body.data;
    const raw = fs.readFileSync(path.join(h.dataDir, 'upfleet.db'));
    const wal = fs.existsSync(path.join(h.dataDir, 'upfleet.db-wal')) ? fs.readFileSync(path.join(h.dataDir, 'upfleet.db-wal')) : Buffer.alloc(0);
    expect(raw.includes(secret)).toBe(false);
    expect(wal.includes(secret)).toBe(false);
  });
});

describe('endpoints and plan rules', () => {
  it('creates, lists, edits, toggles and deletes an endpoint; uptime is null before results', async () => {
    const { token } = await h.signup();
    const created = await h.call('POST', '/api/users/endpoints', endpointBody(), token);
    expect(created.status).toBe(201);
    const id = created.body.data.url_id;
    expect(created.body.data.guid).toMatch(/^[0-9a-f-]{36}$/);

    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      url_id: id, name: 'Example', url: 'https://example.com/', description: 'home page', regions: ['EU-Germany'],
      response_code: true, response_time: false, ping_host: false, cert_expiry: false, monitoring_enabled: true, uptime_percentage: null,
    });
    const upd = await h.call('PUT', `/api/users/endpoints/${id}`, endpointBody({ name: 'Renamed', url: 'https://example.org/' }), token);
    expect(upd.body.data).toMatchObject({ name: 'Renamed', url: 'https://example.org/' });
    const off = await h.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: false }, token);
    expect(off.body.data.monitoring_enabled).toBe(false);
    const dash = await h.call('GET', '/api/users/dashboard', undefined, token);
    expect(dash.body.data).toMatchObject({ total_endpoints: 1, active_monitoring: 0, package_name: 'Free', max_regions: 1, regions_count: 3, response_code: true, ping_host: false, multi_region: false });
    expect((await h.call('DELETE', `/api/users/endpoints/${id}`, undefined, token)).status).toBe(200);
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data).toEqual([]);
  });

  it('defaults to response_code only and the primary region', async () => {
    const { token } = await h.signup();
    const r = await h.call('POST', '/api/users/endpoints', { name: 'Defaults', url: 'http://example.net' }, token);
    expect(r.body.data).toMatchObject({ regions: ['EU-Germany'], response_code: true, response_time: false, ping_host: false, cert_expiry: false });
  });

  it('rejects invalid endpoints with clear messages and writes nothing', async () => {
    const { token } = await h.signup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [endpointBody({ name: '' }), 'Name is required'],
      [endpointBody({ url: '' }), 'URL is required'],
      [endpointBody({ url: 'not a url' }), 'Please enter a valid URL'],
      [endpointBody({ url: 'ftp://example.com' }), 'URL must start with http:// or https://'],
      [endpointBody({ url: 'javascript:alert(1)' }), 'URL must start with http:// or https://'],
      [endpointBody({ ping_host: true }), MESSAGES.featureNotInPlan('Ping Host')],
      [endpointBody({ response_time: true }), MESSAGES.featureNotInPlan('Response Time')],
      [endpointBody({ cert_expiry: true }), MESSAGES.featureNotInPlan('Certificate Expiry')],
      [endpointBody({ regions: ['EU-Germany', 'US-Virginia'] }), MESSAGES.tooManyRegions(1, 'Free')],
      [endpointBody({ regions: ['Mars-Base'] }), 'Unknown region: Mars-Base'],
      [endpointBody({ regions: 'EU-Germany' }), 'Regions must be a list of region names'],
      [endpointBody({ response_code: 'yes' }), 'response_code must be true or false'],
    ];
    for (const [body, error] of cases) {
      const r = await h.call('POST', '/api/users/endpoints', body, token);
      expect(r.status, error).toBe(400);
      expect(r.body).toEqual({ success: false, error });
    }
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data).toEqual([]);
  });

  it('caps the endpoint count at the plan limit with a clear message', async () => {
    const { token } = await h.signup();
    for (let i = 0; i < 10; i++) {
      expect((await h.call('POST', '/api/users/endpoints', endpointBody({ url: `https://example.com/${i}` }), token)).status).toBe(201);
    }
    const over = await h.call('POST', '/api/users/endpoints', endpointBody({ url: 'https://example.com/11' }), token);
    expect(over.status).toBe(400);
    expect(over.body.error).toBe(MESSAGES.tooManyEndpoints(10, 'Free'));
  });

  it('lets a paid plan use more regions and features, capped by its max_regions', async () => {
    const { token, user } = await h.signup();
    const set = await fetch(`${h.cp.url}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${h.cp.adminToken}` },
      body: JSON.stringify({ email: user.email, package: 'Starter' }),
    });
    expect(set.status).toBe(200);
    const ok = await h.call('POST', '/api/users/endpoints', endpointBody({ regions: ['EU-Germany', 'US-Virginia'], ping_host: true, response_time: true, cert_expiry: true }), token);
    expect(ok.status).toBe(201);
    const over = await h.call('POST', '/api/users/endpoints', endpointBody({ url: 'https://x.example', regions: ['EU-Germany', 'US-Virginia', 'AP-Singapore'] }), token);
    expect(over.body.error).toBe(MESSAGES.tooManyRegions(2, 'Starter'));
  });
});

describe('alert thresholds', () => {
  it('returns defaults for enabled features, saves valid thresholds and rejects invalid ones', async () => {
    const { token } = await h.signup();
    const id = (await h.call('POST', '/api/users/endpoints', endpointBody(), token)).body.data.url_id;
    const initial = await h.call('GET', `/api/users/endpoints/${id}/alert-thresholds`, undefined, token);
    expect(initial.body.data).toHaveLength(1);
    expect(initial.body.data[0]).toMatchObject({ monitor_type: 'response_code', display_name: 'Response Code', is_enabled: false });
    const typeId = initial.body.data[0].monitor_type_id;
    const saved = await h.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, {
      alert_thresholds: [{ monitor_type_id: typeId, threshold_value: 500, threshold_operator: '>=', is_enabled: true, region_id: 1 }],
    }, token);
    expect(saved.status).toBe(200);
    const after = await h.call('GET', `/api/users/endpoints/${id}/alert-thresholds`, undefined, token);
    expect(after.body.data[0]).toMatchObject({ threshold_value: 500, threshold_operator: '>=', is_enabled: true, region_id: 1, region_name: 'EU - Germany' });

    for (const bad of [0, -5, 1.5, '10', null]) {
      const r = await h.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, {
        alert_thresholds: [{ monitor_type_id: typeId, threshold_value: bad, threshold_operator: '>', is_enabled: true, region_id: null }],
      }, token);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(MESSAGES.invalidThresholds);
    }
    const badOp = await h.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, {
      alert_thresholds: [{ monitor_type_id: typeId, threshold_value: 5, threshold_operator: '=>', is_enabled: true, region_id: null }],
    }, token);
    expect(badOp.status).toBe(400);
    for (const op of ['>', '<', '=', '!=', '>=', '<=']) {
      const r = await h.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, {
        alert_thresholds: [{ monitor_type_id: typeId, threshold_value: 5, threshold_operator: op, is_enabled: true, region_id: null }],
      }, token);
      expect(r.status, op).toBe(200);
    }
  });
});

describe('alert methods', () => {
  it('creates one method per platform, validates configs, toggles, edits and deletes', async () => {
    const { token } = await h.signup();
    const email = await h.call('POST', '/api/users/alert-methods', { platform: 'email', is_enabled: true, platform_config: { email_address: 'ops@example.com' } }, token);
    expect(email.status).toBe(201);
    const dup = await h.call('POST', '/api/users/alert-methods', { platform: 'email', is_enabled: true, platform_config: { email_address: 'two@example.com' } }, token);
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe(MESSAGES.duplicatePlatform);

    const bad: Array<[Record<string, unknown>, string]> = [
      [{ platform: 'email', platform_config: { email_address: 'nope' } }, 'Please enter a valid email address'],
      [{ platform: 'slack', platform_config: { bot_token: 'xoxb-1' } }, 'channel is required'],
      [{ platform: 'telegram', platform_config: { bot_token: '1:abc' } }, 'chat_id is required'],
      [{ platform: 'webhook', platform_config: { webhook_url: 'not-a-url' } }, 'Webhook URL must be a valid URL'],
      [{ platform: 'discord', platform_config: { webhook_url: 'ftp://x' } }, 'Webhook URL must be a valid URL'],
      [{ platform: 'sms', platform_config: {} }, 'phone_number is required'],
      [{ platform: 'pigeon', platform_config: {} }, 'platform must be one of email, slack, telegram, webhook, sms, discord, teams, pagerduty'],
    ];
    for (const [body, error] of bad) {
      const r = await h.call('POST', '/api/users/alert-methods', body, token);
      expect(r.status, error).toBe(400);
      expect(r.body.error).toBe(error);
    }
    const slack = await h.call('POST', '/api/users/alert-methods', { platform: 'slack', is_enabled: true, platform_config: { bot_token: 'xoxb-secret-token-value', channel: '#ops' } }, token);
    expect(slack.status).toBe(201);
    const id = slack.body.data.alert_method_id;
    const off = await h.call('PUT', `/api/users/alert-methods/${id}`, { is_enabled: false }, token);
    // Secrets are write-only: all but the last 4 characters masked.
    expect(off.body.data).toMatchObject({ is_enabled: false, platform_config: { bot_token: `${'•'.repeat(19)}alue`, channel: '#ops' } });
    const change = await h.call('PUT', `/api/users/alert-methods/${id}`, { platform: 'teams', is_enabled: true, platform_config: { webhook_url: 'https://x' } }, token);
    expect(change.status).toBe(400);
    const edit = await h.call('PUT', `/api/users/alert-methods/${id}`, { platform: 'slack', is_enabled: true, platform_config: { bot_token: 'xoxb-new', channel: '#alerts' } }, token);
    expect(edit.body.data.platform_config.channel).toBe('#alerts');
    const list = await h.call('GET', '/api/users/alert-methods', undefined, token);
    expect(list.body.data.map((m: any) => m.platform)).toEqual(['email', 'slack']);
    expect((await h.call('DELETE', `/api/users/alert-methods/${id}`, undefined, token)).status).toBe(200);
    expect((await h.call('GET', '/api/users/alert-methods', undefined, token)).body.data).toHaveLength(1);
  });

  it('keeps alert-method secrets encrypted at rest', async () => {
    const { token } = await h.signup();
    const secret = 'https://hooks.example.com/very-secret-path-abcdef123456';
    await h.call('POST', '/api/users/alert-methods', { platform: 'webhook', is_enabled: true, platform_config: { webhook_url: secret } }, token);
    const files = fs.readdirSync(h.dataDir).filter((f) => f.startsWith('upfleet.db'));
    for (const f of files) expect(fs.readFileSync(path.join(h.dataDir, f)).includes(secret)).toBe(false);
  });
});

describe('profile and password', () => {
  it('updates the profile with validation and changes the password only with the current one', async () => {
    const { token, user } = await h.signup();
    // email_verified: true without SMTP; a new email needs the current password
    expect((await h.call('GET', '/api/users/profile', undefined, token)).body.data).toEqual({ username: user.username, email: user.email, timezone: 'UTC', email_verified: true });
    const upd = await h.call('PUT', '/api/users/profile', { username: `${user.username}z`, email: `z${user.email}`, timezone: 'UTC+5:30', current_password: 'correct horse' }, token);
    expect(upd.status).toBe(200);
    expect(upd.body.data.timezone).toBe('UTC+5:30');
    expect((await h.call('PUT', '/api/users/profile', { username: 'ok-name', email: 'x@y.z', timezone: 'Mars/Olympus' }, token)).status).toBe(400);
    expect((await h.call('PUT', '/api/users/profile', { username: '', email: 'x@y.z', timezone: 'UTC' }, token)).body.error).toBe('Username is required');

    const wrong = await h.call('POST', '/api/users/change-password', { current_password: 'nope nope', new_password: 'brand new pw' }, token);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('Current password is incorrect');
    const short = await h.call('POST', '/api/users/change-password', { current_password: 'correct horse', new_password: 'short' }, token);
    expect(short.body.error).toBe(MESSAGES.newPasswordTooShort);
    const ok = await h.call('POST', '/api/users/change-password', { current_password: 'correct horse', new_password: 'brand new pw' }, token);
    expect(ok.status).toBe(200);
    expect((await h.call('POST', '/api/auth/login', { email: `z${user.email}`, password: 'brand new pw' })).status).toBe(200);
    expect((await h.call('POST', '/api/auth/login', { email: `z${user.email}`, password: 'correct horse' })).status).toBe(401);
  });
});

describe('isolation between users', () => {
  it("answers 404 for every route on another user's ids and changes nothing", async () => {
    const alice = await h.signup();
    const mallory = await h.signup();
    const eid = (await h.call('POST', '/api/users/endpoints', endpointBody(), alice.token)).body.data.url_id;
    const mid = (await h.call('POST', '/api/users/alert-methods', { platform: 'email', platform_config: { email_address: 'a@example.com' } }, alice.token)).body.data.alert_method_id;
    const attempts: Array<[string, string, unknown?]> = [
      ['PUT', `/api/users/endpoints/${eid}`, endpointBody({ name: 'pwned' })],
      ['PATCH', `/api/users/endpoints/${eid}/toggle`, { monitoring_enabled: false }],
      ['DELETE', `/api/users/endpoints/${eid}`],
      ['GET', `/api/users/endpoints/${eid}/alert-thresholds`],
      ['PUT', `/api/users/endpoints/${eid}/alert-thresholds`, { alert_thresholds: [] }],
      ['GET', `/api/graphs/endpoint/${eid}?hours=1`],
      ['PUT', `/api/users/alert-methods/${mid}`, { is_enabled: false }],
      ['DELETE', `/api/users/alert-methods/${mid}`],
    ];
    for (const [method, p, body] of attempts) {
      const r = await h.call(method, p, body, mallory.token);
      expect(r.status, `${method} ${p}`).toBe(404);
      expect(r.body.success).toBe(false);
    }
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, mallory.token)).body.data).toEqual([]);
    expect((await h.call('GET', '/api/users/alert-methods', undefined, mallory.token)).body.data).toEqual([]);
    const still = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, alice.token);
    expect(still.body.data[0]).toMatchObject({ name: 'Example', monitoring_enabled: true });
    expect((await h.call('GET', '/api/users/alert-methods', undefined, alice.token)).body.data[0].is_enabled).toBe(true);
  });
});

describe('admin API', () => {
  it('requires the admin token', async () => {
    expect((await h.call('GET', '/api/admin/users')).status).toBe(401);
    const { token } = await h.signup();
    expect((await h.call('GET', '/api/admin/users', undefined, token)).status).toBe(401);
    expect((await h.call('GET', '/api/admin/users', undefined, h.cp.adminToken)).status).toBe(200);
  });

  it('serves Prometheus metrics to the admin token only, counting REST requests', async () => {
    expect((await fetch(`${h.cp.url}/metrics`)).status).toBe(401);
    await h.call('GET', '/api/public/packages');
    const res = await fetch(`${h.cp.url}/metrics`, { headers: { authorization: `Bearer ${h.cp.adminToken}` } });
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    const line = text.split('\n').find((l) => l.startsWith('upfleet_http_requests_total{method="GET",status="2xx"}'));
    expect(Number(line?.split(' ')[1])).toBeGreaterThan(0);
    expect(text).toContain('# TYPE upfleet_http_request_duration_seconds summary');
  });

  it('writes the admin token to DATA_DIR with mode 600', () => {
    const st = fs.statSync(path.join(h.dataDir, 'admin-token'));
    expect(st.mode & 0o777).toBe(0o600);
  });
});

describe('endpoint dry run (?dry_run=1)', () => {
  it('answers 200 with the endpoint as it would be saved, refuses what a save would refuse, and saves nothing', async () => {
    const { token } = await h.signup();
    const body = { name: 'Dry', url: 'https://dry.example.com/', regions: [], response_code: true };
    const dry = await h.call('POST', '/api/users/endpoints?dry_run=1', body, token);
    expect([dry.status, dry.body.data]).toEqual([200, { dry_run: true, endpoint: expect.objectContaining({ name: 'Dry', url: 'https://dry.example.com/', regions: ['EU-Germany'] }) }]);
    const list = async () => (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data;
    expect(await list()).toEqual([]);
    const featured = await h.call('POST', '/api/users/endpoints?dry_run=1', { ...body, ping_host: true }, token);
    expect([featured.status, featured.body.error]).toEqual([400, MESSAGES.featureNotInPlan('Ping Host')]);
    const id = (await h.call('POST', '/api/users/endpoints', body, token)).body.data.url_id;
    const taken = await h.call('POST', '/api/users/endpoints?dry_run=1', { ...body, name: 'Again' }, token);
    expect([taken.status, taken.body.error]).toEqual([409, 'You are already monitoring this URL']);
    const upd = await h.call('PUT', `/api/users/endpoints/${id}?dry_run=1`, { ...body, url: 'https://dry.example.com/v2' }, token);
    expect([upd.status, upd.body.data.endpoint.url]).toEqual([200, 'https://dry.example.com/v2']);
    expect((await h.call('PUT', '/api/users/endpoints/999999?dry_run=1', body, token)).status).toBe(404);
    const bad = await h.call('POST', '/api/users/endpoints?dry_run=maybe', body, token);
    expect([bad.status, bad.body.error]).toEqual([400, 'dry_run must be 1 or 0']);
    expect((await list()).map((e: any) => e.url)).toEqual(['https://dry.example.com/']);
  });
});
