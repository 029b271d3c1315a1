// Accounts: limits that hold under parallel requests, 2FA that cannot be stripped or
// replayed, sessions ended when credentials change, expired sessions pruned. Real server, real HTTP.
import { authenticator } from 'otplib';
import { afterEach, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PASSWORD = 'correct horse';
const codeAt = (secret: string, offsetSteps: number) => authenticator.clone({ epoch: Date.now() + offsetSteps * 30_000 }).generate(secret);

async function login(hh: Harness, email: string, extra: Record<string, unknown> = {}) {
  return hh.call('POST', '/api/auth/login', { email, password: PASSWORD, ...extra });
}

/** Signs up, enables 2FA and returns the secret, the backup codes and the code used to verify. */
async function withTwoFactor(hh: Harness) {
  const account = await hh.signup();
  const setup = await hh.call('POST', '/api/2fa/setup', undefined, account.token);
  const { secret, backupCodes } = setup.body.data as { secret: string; backupCodes: string[] };
  const verifyCode = codeAt(secret, 0);
  expect((await hh.call('POST', '/api/2fa/verify', { token: verifyCode }, account.token)).status).toBe(200);
  return { ...account, secret, backupCodes, verifyCode };
}

const sessionWorks = async (hh: Harness, token: string) => (await hh.call('GET', '/api/auth/validate-session', undefined, token)).status === 200;

describe('per-account failure limit under parallel requests', () => {
  it('evaluates at most 10 of 60 parallel wrong passwords and answers 429 to the rest', async () => {
    h = await startHarness({ RATE_LIMIT_ACCOUNT_FAILURES: '10' });
    const { user } = await h.signup();
    const answers = await Promise.all(Array.from({ length: 60 }, () => h!.call('POST', '/api/auth/login', { email: user.email, password: 'wrong password' })));
    const evaluated = answers.filter((a) => a.status === 401).length;
    const refused = answers.filter((a) => a.status === 429);
    console.log(`60 parallel wrong passwords: ${evaluated} evaluated (401), ${refused.length} refused (429)`);
    expect(evaluated).toBeLessThanOrEqual(10);
    expect(evaluated + refused.length).toBe(60);
    expect(refused[0].body).toEqual({ success: false, error: 'Too many attempts. Please try again later.' });
    // The account stays locked for the right password too.
    expect((await login(h, user.email)).status).toBe(429);
    const metrics = await (await fetch(`${h.cp.url}/metrics`, { headers: { authorization: `Bearer ${h.cp.adminToken}` } })).text();
    expect(metrics).toContain(`upfleet_rate_limited_total{bucket="account_fail"} ${refused.length + 1}`);
  });

  it('does not count a right password that is asked for its second factor', async () => {
    h = await startHarness({ RATE_LIMIT_ACCOUNT_FAILURES: '3' });
    const { user } = await withTwoFactor(h);
    for (let i = 0; i < 5; i++) expect((await login(h, user.email)).body.requires2FA).toBe(true);
    expect((await login(h, user.email, { two_factor_code: '000000x' })).status).toBe(401);
  });

  it('limits IPv6 clients per /64 and IPv4 clients per address', async () => {
    h = await startHarness({ TRUST_PROXY: 'loopback', RATE_LIMIT_IP_LOGINS: '3' });
    const from = async (ip: string) =>
      (await fetch(`${h!.cp.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ email: `nobody-${Math.random()}@example.com`, password: 'whatever' }),
      })).status;
    // Three addresses inside one /64 share one allowance.
    expect(await from('2001:db8:1:2::a')).toBe(401);
    expect(await from('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(401);
    expect(await from('2001:0db8:0001:0002::b')).toBe(401);
    expect(await from('2001:db8:1:2:1234::1')).toBe(429);
    // The next /64 is another client.
    expect(await from('2001:db8:1:3::a')).toBe(401);
    // IPv4 stays per address, also in its IPv6-mapped form.
    for (let i = 0; i < 3; i++) expect(await from('203.0.113.7')).toBe(401);
    expect(await from('::ffff:203.0.113.7')).toBe(429);
    expect(await from('203.0.113.8')).toBe(401);
  });
});

describe('two-factor authentication hardening', () => {
  it('disables 2FA only with the current password or a current code', async () => {
    h = await startHarness();
    const { token, user, secret } = await withTwoFactor(h);
    const none = await h.call('POST', '/api/2fa/disable', undefined, token);
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ success: false, error: MESSAGES.twoFactorDisableProof });
    const badPassword = await h.call('POST', '/api/2fa/disable', { password: 'not my password' }, token);
    expect(badPassword.body).toEqual({ success: false, error: 'Current password is incorrect' });
    const badCode = await h.call('POST', '/api/2fa/disable', { token: codeAt(secret, 0) === '123456' ? '654321' : '123456' }, token);
    expect(badCode.body).toEqual({ success: false, error: MESSAGES.invalidCode });
    expect((await h.call('GET', '/api/2fa/status', undefined, token)).body.data).toEqual({ enabled: true });

    const byCode = await h.call('POST', '/api/2fa/disable', { token: codeAt(secret, 1) }, token);
    expect(byCode.status).toBe(200);
    expect((await h.call('GET', '/api/2fa/status', undefined, token)).body.data).toEqual({ enabled: false });
    expect((await login(h, user.email)).status).toBe(200);
  });

  it('accepts a TOTP code once: the code that verified setup, or signed in, is refused when replayed', async () => {
    h = await startHarness();
    const { user, secret, verifyCode } = await withTwoFactor(h);
    const replayOfVerify = await login(h, user.email, { two_factor_code: verifyCode });
    expect(replayOfVerify.status).toBe(401);
    expect(replayOfVerify.body.error).toBe(MESSAGES.invalidCode);

    const next = codeAt(secret, 1);
    expect((await login(h, user.email, { two_factor_code: next })).status).toBe(200);
    const replayOfLogin = await login(h, user.email, { two_factor_code: next });
    expect(replayOfLogin.status).toBe(401);
    expect(replayOfLogin.body.error).toBe(MESSAGES.invalidCode);
  });

  it('lets only one of two parallel logins with the same fresh code through', async () => {
    h = await startHarness();
    const { user, secret } = await withTwoFactor(h);
    const code = codeAt(secret, 1);
    const [a, b] = await Promise.all([login(h, user.email, { two_factor_code: code }), login(h, user.email, { two_factor_code: code })]);
    expect([a.status, b.status].sort()).toEqual([200, 401]);
  });
});

describe("credential changes end the account's other sessions", () => {
  async function twoSessions(hh: Harness) {
    const a = await hh.signup();
    const b = await login(hh, a.user.email);
    return { current: a.token, currentRefresh: a.refreshToken, other: b.body.data.accessToken as string, otherRefresh: b.body.data.refreshToken as string, user: a.user };
  }

  it('enabling and disabling 2FA end the other sessions and keep the current one', async () => {
    h = await startHarness();
    const s = await twoSessions(h);
    const setup = await h.call('POST', '/api/2fa/setup', undefined, s.current);
    const secret = setup.body.data.secret as string;
    expect(await sessionWorks(h, s.other)).toBe(true);
    expect((await h.call('POST', '/api/2fa/verify', { token: codeAt(secret, 0) }, s.current)).status).toBe(200);
    expect(await sessionWorks(h, s.current)).toBe(true);
    expect(await sessionWorks(h, s.other)).toBe(false);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: s.otherRefresh })).status).toBe(401);

    const third = await login(h, s.user.email, { two_factor_code: codeAt(secret, 1) });
    expect(third.status).toBe(200);
    expect((await h.call('POST', '/api/2fa/disable', { password: PASSWORD }, s.current)).status).toBe(200);
    expect(await sessionWorks(h, s.current)).toBe(true);
    expect(await sessionWorks(h, third.body.data.accessToken)).toBe(false);
  });

  it('changing the email ends the other sessions; changing only the timezone does not', async () => {
    h = await startHarness();
    const s = await twoSessions(h);
    const username = s.user.username;
    expect((await h.call('PUT', '/api/users/profile', { username, email: s.user.email, timezone: 'UTC+2' }, s.current)).status).toBe(200);
    expect(await sessionWorks(h, s.other)).toBe(true);
    expect((await h.call('PUT', '/api/users/profile', { username, email: `new-${s.user.email}`, timezone: 'UTC+2', current_password: PASSWORD }, s.current)).status).toBe(200);
    expect(await sessionWorks(h, s.current)).toBe(true);
    expect(await sessionWorks(h, s.other)).toBe(false);
  });

  it('changing the password ends the other sessions and keeps the current one', async () => {
    h = await startHarness();
    const s = await twoSessions(h);
    expect((await h.call('POST', '/api/users/change-password', { current_password: PASSWORD, new_password: 'brand new pw' }, s.current)).status).toBe(200);
    expect(await sessionWorks(h, s.current)).toBe(true);
    expect(await sessionWorks(h, s.other)).toBe(false);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: s.otherRefresh })).status).toBe(401);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: s.currentRefresh })).status).toBe(200);
  });
});

describe('session pruning', () => {
  const counts = (hh: Harness) => ({
    sessions: hh.cp.db.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number,
    tokens: hh.cp.db.prepare('SELECT COUNT(*) FROM refresh_tokens').pluck().get() as number,
  });
  function insertExpired(hh: Harness, userId: number) {
    const long = Date.now() - 40 * 86400_000;
    hh.cp.db.prepare('INSERT INTO sessions (id, user_id, created_at) VALUES (?, ?, ?)').run('old-session', userId, long);
    hh.cp.db.prepare('INSERT INTO refresh_tokens (token_hash, session_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run('old-token-hash', 'old-session', userId, long, long + 30 * 86400_000);
    hh.cp.db.prepare('INSERT INTO sessions (id, user_id, created_at, revoked_at, revoked_reason) VALUES (?, ?, ?, ?, ?)')
      .run('revoked-session', userId, long, long + 1000, 'logout');
    hh.cp.db.prepare('INSERT INTO refresh_tokens (token_hash, session_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run('revoked-token-hash', 'revoked-session', userId, Date.now(), Date.now() + 86400_000);
  }

  it('deletes expired and revoked sessions with their refresh tokens at start, and keeps live ones', async () => {
    h = await startHarness();
    const live = await h.signup();
    insertExpired(h, live.user.id);
    expect(counts(h)).toEqual({ sessions: 3, tokens: 3 });
    await h.restart();
    expect(counts(h)).toEqual({ sessions: 1, tokens: 1 });
    expect(await sessionWorks(h, live.token)).toBe(true);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: live.refreshToken })).status).toBe(200);
  });

  it('prunes periodically while running', async () => {
    h = await startHarness({}, { results: null, pruneIntervalMs: 100 });
    const live = await h.signup();
    insertExpired(h, live.user.id);
    await expect.poll(() => counts(h!), { timeout: 10_000 }).toEqual({ sessions: 1, tokens: 1 });
    expect(await sessionWorks(h, live.token)).toBe(true);
  });
});
