// Status-page subscribers over real HTTP, SQLite and a real local SMTP server: double
// opt-in, mail only to confirmed addresses (report, update, maintenance), one-click unsubscribe and
// List-Unsubscribe, the same answer whether subscribed or not, rate limits, and a durable outbox
// (a mail refused for a while, and one pending across a restart, still arrives).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpReceiver, type SmtpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';
import { SUBSCRIBE_ANSWER } from '../services/status-subscribers';

let h: Harness;
let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
  h = await startHarness({ SMTP_URL: smtp.url, SMTP_FROM: 'status@upfleet.test' }, { results: null, maintenanceTickMs: 200 });
});
afterAll(async () => {
  await h.close();
  await smtp.close();
});

let n = 0;
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ').replace(/=3D/g, '=');
const mailsTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to)).map((m) => unfold(m.raw));
async function waitFor<T>(fn: () => T | undefined | null | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function newPage(over: Record<string, unknown> = {}) {
  const u = await h.signup();
  await h.setPackage(u.user.email, 'Pro');
  const ep = await h.call('POST', '/api/users/endpoints', { name: 'API', url: `https://example.com/${++n}`, regions: ['EU-Germany'], response_code: true }, u.token);
  const page = await h.call('POST', '/api/users/status-pages', { slug: `subs-${process.pid}-${n}`, title: `Acme ${n}`, components: [{ name: 'API', endpoint_id: ep.body.data.url_id }], ...over }, u.token);
  expect(page.status).toBe(201);
  return { token: u.token, page: page.body.data, endpointId: ep.body.data.url_id as number };
}
const subscribe = (slug: string, email: string) => h.call('POST', `/api/public/status/${slug}/subscribe`, { email });
const linkIn = (raw: string, path: string) => new RegExp(`https?://[^\\s>]+${path}\\?token=[A-Za-z0-9._-]+`).exec(raw)?.[0];

describe('status page subscribers', () => {
  it('double opt-in: only a confirmed address gets report mail, with a one-click unsubscribe link and List-Unsubscribe', async () => {
    const { token, page } = await newPage();
    const email = `reader${n}@example.com`;
    const r = await subscribe(page.slug, email);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { message: SUBSCRIBE_ANSWER } });
    const confirmMail = (await waitFor(() => mailsTo(email)[0]));
    expect(confirmMail).toContain('Please confirm your subscription');
    const confirmUrl = linkIn(confirmMail, `/status/${page.slug}/confirm`)!;
    expect(confirmUrl).toMatch(new RegExp(`/status/${page.slug}/confirm\\?token=[A-Za-z0-9._-]+$`));

    // Not confirmed yet: a new report sends nothing to it.
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Early', message: 'x' }, token);
    await new Promise((res) => setTimeout(res, 300));
    expect(mailsTo(email)).toHaveLength(1);

    const confirmed = await fetch(confirmUrl);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Subscription confirmed');
    const list = (await h.call('GET', `/api/users/status-pages/${page.id}/subscribers`, undefined, token)).body.data;
    expect(list.count).toBe(1);
    expect(list.subscribers).toMatchObject([{ email, confirmed: true }]);

    const rep = (await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'API errors', message: 'We are looking into it' }, token)).body.data;
    const reportMail = await waitFor(() => mailsTo(email).find((m) => m.includes('New incident: API errors')));
    expect(reportMail).toContain('We are looking into it');
    expect(reportMail).toMatch(/^List-Unsubscribe: <https?:\/\/[^>]+\/unsubscribe\?token=[^>]+>/m);
    expect(reportMail).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    await h.call('POST', `/api/users/status-pages/${page.id}/reports/${rep.report_id}/updates`, { status: 'resolved', message: 'Fixed it' }, token);
    const resolvedMail = await waitFor(() => mailsTo(email).find((m) => m.includes('Resolved: API errors')));
    expect(resolvedMail).toContain('Fixed it');

    const unsub = linkIn(resolvedMail, `/status/${page.slug}/unsubscribe`)!;
    const gone = await fetch(unsub);
    expect(gone.status).toBe(200);
    expect(await gone.text()).toContain('Unsubscribed');
    // RFC 8058: the same URL also takes a one-click POST.
    expect((await fetch(unsub, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' })).status).toBe(200);
    const count = mailsTo(email).length;
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'After', message: 'y' }, token);
    await new Promise((res) => setTimeout(res, 300));
    expect(mailsTo(email)).toHaveLength(count);
    expect((await h.call('GET', `/api/users/status-pages/${page.id}/subscribers`, undefined, token)).body.data.count).toBe(0);
    // A forged token does nothing.
    expect((await fetch(`${h.cp.url}/status/${page.slug}/unsubscribe?token=1.${'A'.repeat(32)}`)).status).toBe(400);
  });

  it('answers the same whether or not the address is subscribed; a confirmed address gets no new mail; the limits answer 429', async () => {
    const { page } = await newPage();
    const email = `same${n}@example.com`;
    const first = await subscribe(page.slug, email);
    const mail = await waitFor(() => mailsTo(email)[0]);
    await fetch(linkIn(mail, `/status/${page.slug}/confirm`)!);
    const again = await subscribe(page.slug, email);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    await new Promise((res) => setTimeout(res, 300));
    expect(mailsTo(email)).toHaveLength(1);
    expect((await subscribe(page.slug, email)).status).toBe(200);
    const limited = await subscribe(page.slug, email); // the 4th request for this address within the hour
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: 'Too many subscription requests. Please try again later.' });
    expect((await subscribe(page.slug, 'not-an-email')).body).toEqual({ success: false, error: 'Please enter a valid email address' });
    expect((await subscribe('no-such-page', `x${n}@example.com`)).status).toBe(404);
  });

  it('takes only a plain mailbox (API and form): variants of one address answer 400, and its spellings share one limit and one subscriber', async () => {
    const { page } = await newPage();
    const victim = `victim${n}@example.com`;
    const variants = [
      `a:${victim};`, `"Victim" <${victim}>`, `Victim <${victim}>`, `"x"<${victim}>`, `${victim} (comment)`, `${victim}(c)`,
      `<${victim}>`, `${victim}, other${n}@example.com`, `${victim};`, `g:;${victim}`,
    ];
    for (const email of variants) {
      const r = await subscribe(page.slug, email);
      expect({ email, status: r.status, body: r.body }).toEqual({ email, status: 400, body: { success: false, error: 'Please enter a valid email address' } });
      const form = await fetch(`${h.cp.url}/status/${page.slug}/subscribe`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email }).toString() });
      expect({ email, status: form.status }).toEqual({ email, status: 400 });
    }
    // Upper and lower case are one mailbox: the 4th request for it is refused whatever its spelling.
    for (const email of [victim, victim.toUpperCase(), `Victim${n}@Example.COM`]) expect((await subscribe(page.slug, email)).status).toBe(200);
    expect((await subscribe(page.slug, `vIcTiM${n}@example.com`)).status).toBe(429);
    expect(h.cp.db.prepare('SELECT email FROM status_subscribers WHERE page_id = ?').pluck().all(page.id)).toEqual([victim]);
    await new Promise((res) => setTimeout(res, 300));
    expect(smtp.messages.filter((m) => m.to.some((t) => t.toLowerCase() === victim)).length).toBeLessThanOrEqual(3);
  });

  it('refuses a confirmation link older than 48 hours', async () => {
    const { page } = await newPage();
    const email = `late${n}@example.com`;
    await subscribe(page.slug, email);
    const mail = await waitFor(() => mailsTo(email)[0]);
    h.cp.db.prepare('UPDATE status_subscribers SET expires_at = ? WHERE email = ?').run(Date.now() - 1000, email);
    const res = await fetch(linkIn(mail, `/status/${page.slug}/confirm`)!);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('older than 48 hours');
  });

  it('mails maintenance scheduled, started and completed to subscribers of pages showing its endpoints', async () => {
    const { token, page, endpointId } = await newPage();
    const email = `maint${n}@example.com`;
    await subscribe(page.slug, email);
    await fetch(linkIn(await waitFor(() => mailsTo(email)[0]), `/status/${page.slug}/confirm`)!);
    const start = Date.now() + 1500;
    await h.call('POST', '/api/users/maintenance-windows', { title: 'DB upgrade', endpoint_ids: [endpointId], starts_at: new Date(start).toISOString(), ends_at: new Date(start + 1000).toISOString() }, token);
    await waitFor(() => mailsTo(email).find((m) => m.includes('Scheduled maintenance: DB upgrade')));
    await waitFor(() => mailsTo(email).find((m) => m.includes('Maintenance started: DB upgrade')));
    await waitFor(() => mailsTo(email).find((m) => m.includes('Maintenance completed: DB upgrade')));
    expect(mailsTo(email).filter((m) => m.includes('DB upgrade'))).toHaveLength(3);
  });

  it('keeps mail in a durable outbox: refused for a while it is retried, and pending across a restart it still arrives', async () => {
    const { token, page } = await newPage();
    const email = `durable${n}@example.com`;
    await subscribe(page.slug, email);
    await fetch(linkIn(await waitFor(() => mailsTo(email)[0]), `/status/${page.slug}/confirm`)!);
    smtp.rejectWith = 451;
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Retry me', message: 'z' }, token);
    const row = await waitFor(() => h.cp.db.prepare("SELECT * FROM status_mail_outbox WHERE subject LIKE '%Retry me%' AND attempts > 0").get() as any);
    expect(row).toMatchObject({ status: 'pending', to_email: email });
    expect(row.last_error).toMatch(/^SMTP: /);
    // The SMTP server takes mail again while the control plane is down: the new process finds the
    // mail pending (under load a slow start used to meet more refusals and back off past the wait).
    await h.restart(() => {
      smtp.rejectWith = null;
    });
    const mail = await waitFor(() => mailsTo(email).find((m) => m.includes('New incident: Retry me')), 60_000);
    expect(mail).toContain('New incident: Retry me');
    // The receiver keeps the mail before it answers 250; the sender marks it sent on that answer.
    const status = () => h.cp.db.prepare("SELECT status FROM status_mail_outbox WHERE subject LIKE '%Retry me%'").pluck().get();
    await waitFor(() => status() === 'sent');
    expect(status()).toBe('sent');
    expect(mailsTo(email).filter((m) => m.includes('Retry me'))).toHaveLength(1);
  }, 90_000); // a retry's backoff on a loaded machine

  it("lists and removes a page's subscribers for its owner only", async () => {
    const { token, page } = await newPage();
    await subscribe(page.slug, `one${n}@example.com`);
    const other = await h.signup();
    expect((await h.call('GET', `/api/users/status-pages/${page.id}/subscribers`, undefined, other.token)).status).toBe(404);
    const list = (await h.call('GET', `/api/users/status-pages/${page.id}/subscribers`, undefined, token)).body.data;
    expect(list).toMatchObject({ count: 0, subscribers: [{ email: `one${n}@example.com`, confirmed: false }] });
    const id = list.subscribers[0].id;
    expect((await h.call('DELETE', `/api/users/status-pages/${page.id}/subscribers/${id}`, undefined, other.token)).status).toBe(404);
    expect((await h.call('DELETE', `/api/users/status-pages/${page.id}/subscribers/${id}`, undefined, token)).status).toBe(200);
    expect((await h.call('GET', `/api/users/status-pages/${page.id}/subscribers`, undefined, token)).body.data.subscribers).toEqual([]);
  });
});
