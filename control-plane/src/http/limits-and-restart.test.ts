import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('rate limits', () => {
  it('locks an account after too many failed logins, even with the right password, and across a restart', async () => {
    h = await startHarness({ RATE_LIMIT_ACCOUNT_FAILURES: '3' });
    const { user } = await h.signup('lockme');
    for (let i = 0; i < 3; i++) {
      expect((await h.call('POST', '/api/auth/login', { email: user.email, password: 'wrong password' })).status).toBe(401);
    }
    const locked = await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse' });
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ success: false, error: 'Too many attempts. Please try again later.' });
    await h.restart();
    expect((await h.call('POST', '/api/auth/login', { email: user.email, password: 'correct horse' })).status).toBe(429);
  });

  it('limits signups, logins and refreshes per address', async () => {
    h = await startHarness({ RATE_LIMIT_IP_SIGNUPS: '2', RATE_LIMIT_IP_LOGINS: '3', RATE_LIMIT_IP_REFRESHES: '2' });
    const a = await h.signup('first');
    await h.signup('second');
    const third = await h.call('POST', '/api/auth/signup', { username: 'third', email: 'third@example.com', password: 'longenough' });
    expect(third.status).toBe(429);
    for (let i = 0; i < 3; i++) await h.call('POST', '/api/auth/login', { email: `nobody${i}@example.com`, password: 'x' });
    expect((await h.call('POST', '/api/auth/login', { email: a.user.email, password: 'correct horse' })).status).toBe(429);
    const r1 = await h.call('POST', '/api/auth/refresh', { refreshToken: a.refreshToken });
    expect(r1.status).toBe(200);
    await h.call('POST', '/api/auth/refresh', { refreshToken: 'garbage' });
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: r1.body.data.refreshToken })).status).toBe(429);
  });
});

describe('refresh reuse grace', () => {
  it('lets a second tab refresh with the just-rotated token, but treats a late replay as theft', async () => {
    h = await startHarness({ REFRESH_REUSE_GRACE_SECONDS: '1' });
    const { refreshToken } = await h.signup('twotabs');
    const tabA = await h.call('POST', '/api/auth/refresh', { refreshToken });
    const tabB = await h.call('POST', '/api/auth/refresh', { refreshToken });
    expect(tabA.status).toBe(200);
    expect(tabB.status).toBe(200);
    expect(tabB.body.data.refreshToken).not.toBe(tabA.body.data.refreshToken);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: tabA.body.data.refreshToken })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    const replay = await h.call('POST', '/api/auth/refresh', { refreshToken });
    expect(replay.status).toBe(401);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: tabB.body.data.refreshToken })).status).toBe(401);
  });
});

describe('restart', () => {
  it('keeps accounts, endpoints, thresholds, alert methods, 2FA and sessions after a restart', async () => {
    h = await startHarness();
    const { token, user } = await h.signup('keeper');
    const e = await h.call('POST', '/api/users/endpoints', { name: 'Kept', url: 'https://kept.example', regions: ['EU-Germany'] }, token);
    const id = e.body.data.url_id;
    const types = (await h.call('GET', `/api/users/endpoints/${id}/alert-thresholds`, undefined, token)).body.data;
    await h.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, {
      alert_thresholds: [{ monitor_type_id: types[0].monitor_type_id, threshold_value: 42, threshold_operator: '>', is_enabled: true, region_id: null }],
    }, token);
    await h.call('POST', '/api/users/alert-methods', { platform: 'telegram', platform_config: { bot_token: '123:abc', chat_id: '-100200' } }, token);
    await h.call('PUT', '/api/users/profile', { username: 'keeper', email: user.email, timezone: 'UTC+2' }, token);

    await h.restart();

    expect((await h.call('GET', '/api/auth/validate-session', undefined, token)).status).toBe(200);
    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token);
    expect(list.body.data.map((x: any) => x.name)).toEqual(['Kept']);
    const th = await h.call('GET', `/api/users/endpoints/${id}/alert-thresholds`, undefined, token);
    expect(th.body.data[0]).toMatchObject({ threshold_value: 42, is_enabled: true });
    const methods = await h.call('GET', '/api/users/alert-methods', undefined, token);
    expect(methods.body.data[0].platform_config).toEqual({ bot_token: '•••:abc', chat_id: '-100200' });
    expect((await h.call('GET', '/api/users/profile', undefined, token)).body.data.timezone).toBe('UTC+2');
    expect((await h.call('GET', '/api/public/packages')).body.data).toHaveLength(4);
  });
});
