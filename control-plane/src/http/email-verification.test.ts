// Email verification and email changes (items 3 and 4), end to end: the real control
// plane with SMTP_URL pointed at a real SMTP server on loopback (smtp-server), and Stripe at the
// local fake for the checkout claim.
import { authenticator } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpReceiver, type SmtpReceiver } from '../testing/alert-receivers';
import { startFakeStripe, type FakeStripe } from '../testing/fake-stripe';
import { startHarness, type Harness } from '../testing/harness';
import { CLAIM_UNVERIFIED } from '../services/billing/claims';
import { VERIFY_EMAIL_FIRST } from '../alerting/settings';
import { ALREADY_VERIFIED, EMAIL_CHANGE_PROOF, VERIFY_LINK_INVALID } from '../services/auth';

let h: Harness;
let smtp: SmtpReceiver;
let stripe: FakeStripe;
let clock = Date.now();
const PASSWORD = 'correct horse';

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  stripe = await startFakeStripe();
  h = await startHarness({
    SMTP_URL: smtp.url, SMTP_FROM: 'Upfleet <no-reply@upfleet.test>', PUBLIC_URL: 'https://app.upfleet.test',
    STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_BASE: stripe.url,
  }, { results: null, now: () => clock });
  expect((await h.call('POST', '/api/admin/packages/set-price', { package: 'Starter', stripe_price_id: 'price_starter_monthly' }, h.cp.adminToken)).status).toBe(200);
});
afterAll(async () => {
  await h?.close();
  await stripe?.close();
  await smtp?.close();
});

/** Quoted-printable decoded, as a mail client shows it. */
const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The newest verification link mailed to `to` (waits for it). */
async function linkFor(to: string, after = 0): Promise<string> {
  const start = Date.now();
  for (;;) {
    const mails = smtp.messages.filter((m) => m.to.includes(to));
    if (mails.length > after) {
      const m = /https:\/\/app\.upfleet\.test(\/api\/auth\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(decoded(mails.at(-1)!.raw));
      expect(m, decoded(mails.at(-1)!.raw)).not.toBeNull();
      return m![1];
    }
    if (Date.now() - start > 10_000) throw new Error(`no mail to ${to}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const mailsTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to)).length;
const open = (pathAndQuery: string) => fetch(`${h.cp.url}${pathAndQuery}`, { redirect: 'manual' });
const profile = async (token: string) => (await h.call('GET', '/api/users/profile', undefined, token)).body.data;

describe('email verification (SMTP_URL set)', () => {
  it('signup mails a one-use link; until it is opened, email/SMS test sends and a checkout claim by email are refused', async () => {
    const s = await h.signup();
    const email = s.user.email;
    expect(await profile(s.token)).toMatchObject({ email, email_verified: false });
    const link = await linkFor(email);
    const mail = decoded(smtp.messages.find((m) => m.to.includes(email))!.raw);
    expect(mail).toContain('Subject: Verify your email address for Upfleet');

    const method = (await h.call('POST', '/api/users/alert-methods', { platform: 'email', is_enabled: true, platform_config: { email_address: 'ops@example.com' } }, s.token)).body.data.alert_method_id;
    const test = await h.call('POST', `/api/users/alert-methods/${method}/test`, undefined, s.token);
    expect([test.status, test.body]).toEqual([403, { success: false, error: VERIFY_EMAIL_FIRST }]);

    // A checkout paid with this address cannot be claimed at login before the address is verified.
    const pkg = (await h.call('GET', '/api/public/packages')).body.data.find((p: any) => p.package_name === 'Starter');
    await h.call('POST', '/api/public/create-checkout-session', { priceId: pkg.stripe_price_id, packageId: pkg.package_id, packageName: 'Starter', email });
    const { session } = stripe.completeCheckout([...stripe.sessions.keys()].at(-1)!);
    const early = await h.call('POST', '/api/auth/login', { email, password: PASSWORD, checkout_session: session.id });
    expect([early.status, early.body.error]).toEqual([403, CLAIM_UNVERIFIED]);

    const r = await open(link);
    expect([r.status, r.headers.get('location')]).toEqual([302, '/profile?email_verified=1']);
    expect((await profile(s.token)).email_verified).toBe(true);
    const again = await open(link);
    expect([again.status, await again.json()]).toEqual([400, { success: false, error: VERIFY_LINK_INVALID }]);
    // a browser lands on a page that says so (signed in or not), not on the API's JSON
    const html = { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' as const };
    const used = await fetch(`${h.cp.url}${link}`, html);
    expect([used.status, used.headers.get('location')]).toEqual([302, `/email-verified?error=${encodeURIComponent(VERIFY_LINK_INVALID)}`]);

    const late = await h.call('POST', '/api/auth/login', { email, password: PASSWORD, checkout_session: session.id });
    expect(late.status).toBe(200);
    expect((await h.call('GET', '/api/users/dashboard', undefined, s.token)).body.data.package_name).toBe('Starter');
    const ok = await h.call('POST', `/api/users/alert-methods/${method}/test`, undefined, s.token);
    expect(ok.body).toEqual({ success: true, data: { delivered: true } });
    expect((await h.call('POST', '/api/auth/resend-verification', undefined, s.token)).body).toEqual({ success: false, error: ALREADY_VERIFIED });
  });

  it('opened in a browser, a link lands on the page that confirms it (no sign-in needed)', async () => {
    const s = await h.signup();
    const link = await linkFor(s.user.email);
    const r = await fetch(`${h.cp.url}${link}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
    expect([r.status, r.headers.get('location')]).toEqual([302, '/email-verified']);
    expect((await profile(s.token)).email_verified).toBe(true);
  });

  it('a link works for 48 hours; resend sends a new one (the old one ends), 3 an hour, then 429 with Retry-After', async () => {
    const s = await h.signup();
    const first = await linkFor(s.user.email);
    const resend = () => h.call('POST', '/api/auth/resend-verification', undefined, s.token);
    expect((await resend()).body).toMatchObject({ success: true, data: { sent: true, email: s.user.email } });
    const second = await linkFor(s.user.email, 1);
    expect(second).not.toBe(first);
    expect((await open(first)).status).toBe(400); // replaced by the resend
    for (let i = 0; i < 2; i++) expect((await resend()).status).toBe(200);
    const limited = await resend();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(mailsTo(s.user.email)).toBe(4);
    const newest = await linkFor(s.user.email, 3);
    const start = clock;
    try {
      clock = start + 48 * 3600_000 + 1000;
      expect((await open(newest)).status).toBe(400);
      expect((await profile(s.token)).email_verified).toBe(false);
    } finally {
      clock = start;
    }
  });
});

describe('changing the email', () => {
  it('needs the current password; the new address gets a link and becomes the account\'s only when it is opened; other sessions end', async () => {
    const s = await h.signup();
    await open(await linkFor(s.user.email));
    const other = (await h.call('POST', '/api/auth/login', { email: s.user.email, password: PASSWORD })).body.data.accessToken as string;
    const next = `moved-${s.user.email}`;
    const body = { username: s.user.username, email: next, timezone: 'UTC' };
    // A stolen access token alone cannot move the account.
    const bare = await h.call('PUT', '/api/users/profile', body, s.token);
    expect([bare.status, bare.body]).toEqual([400, { success: false, error: EMAIL_CHANGE_PROOF }]);
    const wrong = await h.call('PUT', '/api/users/profile', { ...body, current_password: 'not the password' }, s.token);
    expect([wrong.status, wrong.body.error]).toEqual([400, 'Current password is incorrect']);
    const code = await h.call('PUT', '/api/users/profile', { ...body, two_factor_code: '123456' }, s.token);
    expect(code.status).toBe(400); // no 2FA on this account: a code proves nothing
    expect(mailsTo(next)).toBe(0);
    expect(await profile(s.token)).toMatchObject({ email: s.user.email, email_verified: true });

    const ok = await h.call('PUT', '/api/users/profile', { ...body, current_password: PASSWORD }, s.token);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ email: s.user.email, pending_email: next, email_verified: true });
    const link = await linkFor(next);
    expect((await h.call('POST', '/api/auth/login', { email: next, password: PASSWORD })).status).toBe(401);
    expect((await open(link)).status).toBe(302);
    expect(await profile(s.token)).toEqual({ username: s.user.username, email: next, timezone: 'UTC', email_verified: true });
    expect((await h.call('POST', '/api/auth/login', { email: next, password: PASSWORD })).status).toBe(200);
    expect((await h.call('GET', '/api/users/profile', undefined, other)).status).toBe(401);
  });
});

describe('changing the email with a two-factor code', () => {
  it('takes a backup code instead of the password (each code once); a wrong one is refused', async () => {
    const s = await h.signup();
    await open(await linkFor(s.user.email));
    const setup = (await h.call('POST', '/api/2fa/setup', undefined, s.token)).body.data as { secret: string; backupCodes: string[] };
    expect((await h.call('POST', '/api/2fa/verify', { token: authenticator.generate(setup.secret) }, s.token)).status).toBe(200);
    const next = `2fa-${s.user.email}`;
    const body = { username: s.user.username, email: next, timezone: 'UTC' };
    const wrong = await h.call('PUT', '/api/users/profile', { ...body, two_factor_code: '00000-00000' }, s.token);
    expect(wrong.status).toBe(400);
    const ok = await h.call('PUT', '/api/users/profile', { ...body, two_factor_code: setup.backupCodes[0] }, s.token);
    expect([ok.status, ok.body.data.pending_email]).toEqual([200, next]);
    const reused = await h.call('PUT', '/api/users/profile', { ...body, email: `again-${next}`, two_factor_code: setup.backupCodes[0] }, s.token);
    expect(reused.status).toBe(400);
    await open(await linkFor(next));
    expect((await profile(s.token)).email).toBe(next);
  });
});
