// Status pages over real HTTP and SQLite: the owner API's every rule (validation, slug
// rules, ownership, the plan limit), reports with updates, maintenance windows whose state follows the
// clock, and the public JSON, HTML and Atom answers (component state, cache headers, passwords).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHarness, type Harness } from '../testing/harness';
import { rawGet } from '../testing/raw-http';
import { startDnsServer, type LocalDnsServer } from '../testing/dns-server';

let h: Harness;
let dns: LocalDnsServer;
beforeAll(async () => {
  // Custom domains are served once a TXT record proves them: the records come from a DNS server on loopback.
  dns = await startDnsServer();
  h = await startHarness({ DNS_RESOLVERS: dns.address });
});
afterAll(async () => {
  await h.close();
  await dns.close();
});

let n = 0;
const slug = () => `page-${process.pid}-${++n}`;
const pageBody = (over: Record<string, unknown> = {}): Record<string, any> => ({ slug: slug(), title: 'Acme status', description: 'Our services', ...over });
const newEndpoint = async (token: string, name = 'API') => {
  const r = await h.call('POST', '/api/users/endpoints', { name, url: `https://example.com/${name}-${++n}`, regions: ['EU-Germany'], response_code: true }, token);
  expect(r.status).toBe(201);
  return r.body.data.url_id as number;
};
/** A user on Pro (10 pages) so one test file can make many pages. */
const proUser = async () => {
  const u = await h.signup();
  await h.setPackage(u.user.email, 'Pro');
  return u;
};
const iso = (ms: number) => new Date(ms).toISOString();
const pages = async (token: string) => (await h.call('GET', '/api/users/status-pages', undefined, token)).body.data as any[];
/** Publishes the page's TXT record and has the server check it. */
const proveDomain = async (page: { id: number; custom_domain: string; custom_domain_token: string }, token: string) => {
  dns.txt.set(`_upfleet-challenge.${page.custom_domain}`, [page.custom_domain_token]);
  const r = await h.call('POST', `/api/users/status-pages/${page.id}/verify-domain`, undefined, token);
  expect(r.body.data).toMatchObject({ found: true, custom_domain_verified: true });
};

describe('status pages: owner API', () => {
  it('creates a page with ordered components (endpoint or static, grouped) and never shows the password', async () => {
    const { token } = await proUser();
    const api = await newEndpoint(token, 'api');
    const body = pageBody({
      password: 'open sesame', timezone: 'UTC+2', custom_domain: 'Status.Acme-Test.example',
      components: [{ name: 'API', endpoint_id: api, group: 'Core' }, { name: 'Support desk', endpoint_id: null }],
    });
    const r = await h.call('POST', '/api/users/status-pages', body, token);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      slug: body.slug, title: 'Acme status', description: 'Our services', published: true, has_password: true, custom_domain: 'status.acme-test.example',
      timezone: 'UTC+2', auto_reports: true,
    });
    expect(r.body.data.components.map((c: any) => [c.name, c.endpoint_id, c.group, c.position])).toEqual([['API', api, 'Core', 0], ['Support desk', null, null, 1]]);
    expect(JSON.stringify(r.body)).not.toContain('open sesame');
    expect(JSON.stringify(r.body)).not.toContain('password_hash');
    expect((await h.call('GET', `/api/users/status-pages/${r.body.data.id}`, undefined, token)).body.data).toEqual(r.body.data);
  });

  it('refuses bad slugs (format, reserved words) with 400 and a taken slug or domain with 409; nothing is created', async () => {
    const { token } = await proUser();
    for (const bad of ['ab', '-abc', 'abc-', 'a_b_c', 'x'.repeat(49), 'Ünïcode']) {
      const r = await h.call('POST', '/api/users/status-pages', pageBody({ slug: bad }), token);
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toMatch(/^Slug must be 3 to 48/);
    }
    for (const reserved of ['admin', 'api', 'status', 'www']) {
      const r = await h.call('POST', '/api/users/status-pages', pageBody({ slug: reserved }), token);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'This slug is reserved. Please choose another one.' });
    }
    const first = pageBody({ custom_domain: `st${n}.example.org` });
    const created = await h.call('POST', '/api/users/status-pages', first, token);
    expect(created.status).toBe(201);
    await proveDomain(created.body.data, token); // only a proved domain is taken
    const other = await proUser();
    const taken = await h.call('POST', '/api/users/status-pages', pageBody({ slug: first.slug.toUpperCase() }), other.token);
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('This slug is already taken. Please choose another one.');
    const domain = await h.call('POST', '/api/users/status-pages', pageBody({ custom_domain: first.custom_domain }), other.token);
    expect(domain.status).toBe(409);
    expect(await pages(token)).toHaveLength(1);
    expect(await pages(other.token)).toHaveLength(0);
    // Live availability for the editor.
    const avail = async (s: string) => (await h.call('GET', `/api/users/status-pages/slug-available?slug=${encodeURIComponent(s)}`, undefined, token)).body.data;
    expect(await avail(first.slug)).toMatchObject({ available: false, error: null });
    expect(await avail('fresh-slug-here')).toMatchObject({ available: true });
    expect(await avail('admin')).toMatchObject({ available: false, error: 'This slug is reserved. Please choose another one.' });
  });

  it('refuses bad fields with their message: title, timezone, components, custom domain, short password', async () => {
    const { token } = await proUser();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: ' ' }, 'Title is required'],
      [{ timezone: 'Mars/Olympus' }, 'Please choose a timezone from the list'],
      [{ components: 'x' }, 'Components must be a list'],
      [{ components: [{ name: '' }] }, 'Component name is required'],
      [{ components: [{ name: 'A', endpoint_id: 'one' }] }, 'Endpoint id must be a number'],
      [{ custom_domain: 'not a host' }, 'Custom domain must be a host name such as status.example.com'],
      [{ password: 'abc' }, 'Page password must be at least 6 characters long'],
      [{ published: 'yes' }, 'published must be true or false'],
    ];
    for (const [over, error] of cases) {
      const r = await h.call('POST', '/api/users/status-pages', pageBody(over), token);
      expect(r.body, JSON.stringify(over)).toEqual({ success: false, error });
      expect(r.status).toBe(400);
    }
    expect(await pages(token)).toEqual([]);
  });

  it("refuses another user's endpoint as not found, and another user's page is not found for GET, PUT, DELETE and reports", async () => {
    const a = await proUser();
    const b = await proUser();
    const theirs = await newEndpoint(b.token);
    const r = await h.call('POST', '/api/users/status-pages', pageBody({ components: [{ name: 'X', endpoint_id: theirs }] }), a.token);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, error: 'Endpoint not found' });
    const mine = (await h.call('POST', '/api/users/status-pages', pageBody(), a.token)).body.data;
    for (const [method, path, body] of [
      ['GET', `/api/users/status-pages/${mine.id}`, undefined],
      ['PUT', `/api/users/status-pages/${mine.id}`, pageBody()],
      ['DELETE', `/api/users/status-pages/${mine.id}`, undefined],
      ['GET', `/api/users/status-pages/${mine.id}/reports`, undefined],
      ['POST', `/api/users/status-pages/${mine.id}/reports`, { title: 'x', message: 'y' }],
    ] as const) {
      const res = await h.call(method, path, body, b.token);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Status page not found' });
    }
    expect((await h.call('GET', `/api/users/status-pages/${mine.id}`, undefined, a.token)).body.data.title).toBe('Acme status');
    expect((await h.call('GET', '/api/users/status-pages/abc', undefined, a.token)).status).toBe(404);
    expect((await h.call('GET', '/api/users/status-pages')).status).toBe(401);
  });

  it('holds Free to 1 page with a 403 in the style of the endpoint limit; deleting one frees the place', async () => {
    const { token } = await h.signup();
    const first = await h.call('POST', '/api/users/status-pages', pageBody(), token);
    expect(first.status).toBe(201);
    const second = await h.call('POST', '/api/users/status-pages', pageBody(), token);
    expect(second.status).toBe(403);
    expect(second.body).toEqual({ success: false, error: MESSAGES.tooManyStatusPages(1, 'Free') });
    expect(second.body.error).toBe('You have reached the limit of 1 status pages for your Free plan. Please upgrade to add more status pages.');
    expect(await pages(token)).toHaveLength(1);
    expect((await h.call('DELETE', `/api/users/status-pages/${first.body.data.id}`, undefined, token)).status).toBe(200);
    expect((await h.call('POST', '/api/users/status-pages', pageBody(), token)).status).toBe(201);
  });

  it('plans carry max_status_pages (Free 1, Starter 3, Pro 10, Business 50)', async () => {
    const list = (await h.call('GET', '/api/public/packages')).body.data as any[];
    expect(Object.fromEntries(list.map((p) => [p.package_name, p.max_status_pages]))).toEqual({ Free: 1, Starter: 3, Pro: 10, Business: 50 });
  });

  it('PUT keeps components named by id (and their reports), adds new ones, drops the missing, in the order sent; password stays unless sent', async () => {
    const { token } = await proUser();
    const created = (await h.call('POST', '/api/users/status-pages', pageBody({ password: 'secret-1', components: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] }), token)).body.data;
    const [a, b, c] = created.components;
    const rep = await h.call('POST', `/api/users/status-pages/${created.id}/reports`, { title: 'Slow', message: 'Looking', affected: [{ component_id: c.component_id, impact: 'degraded' }] }, token);
    expect(rep.status).toBe(201);
    const put = await h.call('PUT', `/api/users/status-pages/${created.id}`, {
      ...pageBody({ slug: created.slug, title: 'Renamed' }),
      components: [{ component_id: c.component_id, name: 'C2', group: 'G' }, { name: 'D' }, { component_id: a.component_id, name: 'A' }],
    }, token);
    expect(put.status).toBe(200);
    expect(put.body.data.title).toBe('Renamed');
    expect(put.body.data.has_password).toBe(true);
    expect(put.body.data.components.map((x: any) => x.name)).toEqual(['C2', 'D', 'A']);
    expect(put.body.data.components[0].component_id).toBe(c.component_id);
    expect(put.body.data.components.some((x: any) => x.component_id === b.component_id)).toBe(false);
    const reports = (await h.call('GET', `/api/users/status-pages/${created.id}/reports`, undefined, token)).body.data;
    expect(reports[0].affected).toEqual([{ component_id: c.component_id, impact: 'degraded' }]);
    // A component id of another page is refused.
    const other = (await h.call('POST', '/api/users/status-pages', pageBody({ components: [{ name: 'Z' }] }), token)).body.data;
    const bad = await h.call('PUT', `/api/users/status-pages/${created.id}`, { ...pageBody({ slug: created.slug }), components: [{ component_id: other.components[0].component_id, name: 'Z' }] }, token);
    expect(bad.status).toBe(400);
    // password: null removes it.
    const open = await h.call('PUT', `/api/users/status-pages/${created.id}`, { ...pageBody({ slug: created.slug }), password: null }, token);
    expect(open.body.data.has_password).toBe(false);
  });
});

describe('incident reports', () => {
  it('opens a report with its first update, posts updates shown newest first, resolves, edits and deletes', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ components: [{ name: 'API' }, { name: 'Web' }] }), token)).body.data;
    const [api, web] = page.components.map((c: any) => c.component_id);
    const base = `/api/users/status-pages/${page.id}/reports`;
    const r = await h.call('POST', base, { title: 'API errors', status: 'investigating', message: 'We are looking into it', affected: [{ component_id: api, impact: 'major_outage' }] }, token);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ title: 'API errors', status: 'investigating', resolved_at: null, affected: [{ component_id: api, impact: 'major_outage' }] });
    expect(r.body.data.updates).toHaveLength(1);
    const id = r.body.data.report_id;
    const u1 = await h.call('POST', `${base}/${id}/updates`, { status: 'identified', message: 'A bad deploy', affected: [{ component_id: api, impact: 'partial_outage' }, { component_id: web, impact: 'degraded' }] }, token);
    expect(u1.status).toBe(201);
    expect(u1.body.data.status).toBe('identified');
    expect(u1.body.data.affected).toEqual([{ component_id: api, impact: 'partial_outage' }, { component_id: web, impact: 'degraded' }]);
    const u2 = await h.call('POST', `${base}/${id}/updates`, { status: 'resolved', message: 'Rolled back' }, token);
    expect(u2.body.data.status).toBe('resolved');
    expect(u2.body.data.resolved_at).not.toBeNull();
    expect(u2.body.data.affected).toHaveLength(2); // no `affected`: unchanged
    expect(u2.body.data.updates.map((u: any) => u.message)).toEqual(['Rolled back', 'A bad deploy', 'We are looking into it']);
    const times = u2.body.data.updates.map((u: any) => Date.parse(u.created_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);

    const updateId = u2.body.data.updates[1].update_id;
    const edited = await h.call('PUT', `${base}/${id}/updates/${updateId}`, { message: 'A bad deploy (config)' }, token);
    expect(edited.body.data.updates[1].message).toBe('A bad deploy (config)');
    // Deleting the newest update: the report's status follows the newest remaining one.
    const dropped = await h.call('DELETE', `${base}/${id}/updates/${u2.body.data.updates[0].update_id}`, undefined, token);
    expect(dropped.body.data).toMatchObject({ status: 'identified', resolved_at: null });
    expect((await h.call('PUT', `${base}/${id}`, { title: 'API outage' }, token)).body.data.title).toBe('API outage');
    expect((await h.call('DELETE', `${base}/${id}`, undefined, token)).status).toBe(200);
    expect((await h.call('GET', base, undefined, token)).body.data).toEqual([]);
    expect((await h.call('POST', `${base}/${id}/updates`, { status: 'resolved', message: 'x' }, token)).status).toBe(404);
  });

  it('refuses a bad status or impact, a component of another page, and keeps the report unchanged', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ components: [{ name: 'API' }] }), token)).body.data;
    const other = (await h.call('POST', '/api/users/status-pages', pageBody({ components: [{ name: 'X' }] }), token)).body.data;
    const base = `/api/users/status-pages/${page.id}/reports`;
    const comp = page.components[0].component_id;
    expect((await h.call('POST', base, { title: 'x', message: 'y', status: 'fixed' }, token)).body.error).toBe('Status must be one of investigating, identified, monitoring, resolved');
    expect((await h.call('POST', base, { title: 'x', message: 'y', affected: [{ component_id: comp, impact: 'down' }] }, token)).body.error).toBe('Impact must be one of degraded, partial_outage, major_outage');
    expect((await h.call('POST', base, { title: 'x' }, token)).body.error).toBe('Message is required');
    const foreign = await h.call('POST', base, { title: 'x', message: 'y', affected: [{ component_id: other.components[0].component_id, impact: 'degraded' }] }, token);
    expect(foreign.status).toBe(400);
    expect((await h.call('GET', base, undefined, token)).body.data).toEqual([]);
    const rep = (await h.call('POST', base, { title: 'x', message: 'y' }, token)).body.data;
    expect((await h.call('POST', `${base}/${rep.report_id}/updates`, { status: 'done', message: 'z' }, token)).status).toBe(400);
    expect((await h.call('DELETE', `${base}/${rep.report_id}/updates/${rep.updates[0].update_id}`, undefined, token)).status).toBe(400);
    expect((await h.call('GET', base, undefined, token)).body.data[0].updates).toHaveLength(1);
  });
});

describe('maintenance windows', () => {
  it('state follows the clock: scheduled, in progress (a start in the past is allowed), completed', async () => {
    const { token } = await proUser();
    const ep = await newEndpoint(token);
    const now = Date.now();
    const later = await h.call('POST', '/api/users/maintenance-windows', { title: 'DB upgrade', message: 'Short downtime', endpoint_ids: [ep], starts_at: iso(now + 3600_000), ends_at: iso(now + 7200_000) }, token);
    expect(later.status).toBe(201);
    expect(later.body.data).toMatchObject({ title: 'DB upgrade', endpoint_ids: [ep], state: 'scheduled', starts_at: iso(now + 3600_000) });
    const running = await h.call('POST', '/api/users/maintenance-windows', { title: 'Now', endpoint_ids: [ep], starts_at: iso(now - 60_000), ends_at: iso(now + 1500) }, token);
    expect(running.body.data.state).toBe('in_progress');
    await new Promise((r) => setTimeout(r, 1600));
    expect((await h.call('GET', `/api/users/maintenance-windows/${running.body.data.id}`, undefined, token)).body.data.state).toBe('completed');
    const list = (await h.call('GET', '/api/users/maintenance-windows', undefined, token)).body.data;
    expect(list.map((w: any) => w.state).sort()).toEqual(['completed', 'scheduled']);
    const moved = await h.call('PUT', `/api/users/maintenance-windows/${later.body.data.id}`, { title: 'DB upgrade', endpoint_ids: [ep], starts_at: iso(now - 1000), ends_at: iso(now + 600_000) }, token);
    expect(moved.body.data.state).toBe('in_progress');
    expect((await h.call('DELETE', `/api/users/maintenance-windows/${later.body.data.id}`, undefined, token)).status).toBe(200);
    expect((await h.call('GET', `/api/users/maintenance-windows/${later.body.data.id}`, undefined, token)).status).toBe(404);
  });

  it("refuses an end before the start, more than 7 days, an end already past, no endpoint, another user's endpoint or window", async () => {
    const a = await proUser();
    const b = await proUser();
    const ep = await newEndpoint(a.token);
    const theirs = await newEndpoint(b.token);
    const now = Date.now();
    const body = (over: Record<string, unknown>) => ({ title: 'M', endpoint_ids: [ep], starts_at: iso(now + 3600_000), ends_at: iso(now + 7200_000), ...over });
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ ends_at: iso(now + 1800_000) }, 400, 'The end must be after the start'],
      [{ ends_at: iso(now + 3600_000 + 7 * 86_400_000 + 1000) }, 400, 'A maintenance window is at most 7 days long'],
      [{ starts_at: iso(now - 7200_000), ends_at: iso(now - 3600_000) }, 400, 'The end must be in the future'],
      [{ endpoint_ids: [] }, 400, 'Choose at least one endpoint'],
      [{ starts_at: 'tomorrow' }, 400, 'Start must be a date-time such as 2026-01-31T22:00:00Z'],
      [{ endpoint_ids: [theirs] }, 404, 'Endpoint not found'],
    ];
    for (const [over, status, error] of cases) {
      const r = await h.call('POST', '/api/users/maintenance-windows', body(over), a.token);
      expect(r.body, JSON.stringify(over)).toEqual({ success: false, error });
      expect(r.status).toBe(status);
    }
    expect((await h.call('GET', '/api/users/maintenance-windows', undefined, a.token)).body.data).toEqual([]);
    const w = (await h.call('POST', '/api/users/maintenance-windows', body({}), a.token)).body.data;
    expect((await h.call('GET', `/api/users/maintenance-windows/${w.id}`, undefined, b.token)).status).toBe(404);
    expect((await h.call('PUT', `/api/users/maintenance-windows/${w.id}`, body({ endpoint_ids: [theirs] }), b.token)).status).toBe(404);
    expect((await h.call('DELETE', `/api/users/maintenance-windows/${w.id}`, undefined, b.token)).status).toBe(404);
    expect((await h.call('GET', '/api/users/maintenance-windows', undefined, b.token)).body.data).toEqual([]);
  });
});

describe('public status page', () => {
  const openIncident = (userId: number, urlId: number, condition: string) =>
    h.cp.db.prepare("INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at) VALUES (?, ?, ?, '[]', 'test', ?)").run(userId, urlId, condition, Date.now());

  it('component state: an open down incident is major_outage, a threshold incident degraded, maintenance, else the worst open report; overall is the worst', async () => {
    const { token, user } = await proUser();
    const down = await newEndpoint(token, 'down');
    const slow = await newEndpoint(token, 'slow');
    const maint = await newEndpoint(token, 'maint');
    const fine = await newEndpoint(token, 'fine');
    openIncident(user.id, down, 'down');
    openIncident(user.id, slow, 'threshold:response_time');
    await h.call('POST', '/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [maint], starts_at: iso(Date.now() - 60_000), ends_at: iso(Date.now() + 3600_000) }, token);
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({
      components: [
        { name: 'Down', endpoint_id: down }, { name: 'Slow', endpoint_id: slow, group: 'Edge' }, { name: 'Maint', endpoint_id: maint },
        { name: 'Fine', endpoint_id: fine }, { name: 'Static', endpoint_id: null },
      ],
    }), token)).body.data;
    const staticId = page.components[4].component_id;
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Support slow', message: 'Busy', affected: [{ component_id: staticId, impact: 'partial_outage' }] }, token);
    // A resolved report changes nothing.
    const old = (await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Old', message: 'x', affected: [{ component_id: page.components[3].component_id, impact: 'major_outage' }] }, token)).body.data;
    await h.call('POST', `/api/users/status-pages/${page.id}/reports/${old.report_id}/updates`, { status: 'resolved', message: 'ok' }, token);

    const r = await h.call('GET', `/api/public/status/${page.slug}`);
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.page).toEqual({ slug: page.slug, title: 'Acme status', description: 'Our services', timezone: 'UTC' });
    expect(d.components.map((c: any) => [c.name, c.status, c.group])).toEqual([
      ['Down', 'major_outage', null], ['Slow', 'degraded', 'Edge'], ['Maint', 'maintenance', null], ['Fine', 'operational', null], ['Static', 'partial_outage', null],
    ]);
    expect(d.overall).toBe('major_outage');
    expect(d.maintenance).toHaveLength(1);
    expect(d.maintenance[0]).toMatchObject({ title: 'Upgrade', state: 'in_progress', components: [page.components[2].component_id] });
    expect(d.reports.map((x: any) => [x.title, x.status])).toEqual([['Old', 'resolved'], ['Support slow', 'investigating']]);
    // 90 daily bars; without results every day is "no data" (null), never 100 %.
    for (const c of d.components) {
      expect(c.days).toHaveLength(90);
      expect(c.days.every((x: any) => x.uptime === null)).toBe(true);
      expect(c.uptime_90d).toBeNull();
    }
    expect(d.components[0].days.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    expect(d.components[4].days.at(-1).reports).toEqual([{ report_id: expect.any(Number), title: 'Support slow' }]);
    expect(JSON.stringify(d)).not.toContain('incident_id');
  });

  it('lists an outage that began before the page existed under the banner that counts it, and titles the HTML with the page title once', async () => {
    const { token, user } = await proUser();
    const api = await newEndpoint(token, 'api');
    const slow = await newEndpoint(token, 'slow');
    h.cp.db.prepare("INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at) VALUES (?, ?, 'down', '[]', 'connection refused', ?)").run(user.id, api, Date.now() - 3600_000);
    openIncident(user.id, slow, 'threshold:response_time');
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({
      title: 'Acme Status', auto_reports: true, components: [{ name: 'API', endpoint_id: api }, { name: 'Search', endpoint_id: slow }],
    }), token)).body.data;
    // an open report about Search covers its incident; nothing was ever reported about the API
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Search slow', message: 'Looking', affected: [{ component_id: page.components[1].component_id, impact: 'degraded' }] }, token);
    const d = (await h.call('GET', `/api/public/status/${page.slug}`)).body.data;
    expect(d.overall).toBe('major_outage');
    expect(d.detected).toEqual([{ component_ids: [page.components[0].component_id], impact: 'major_outage', title: 'API is down', since: expect.any(String) }]);
    expect(Date.now() - Date.parse(d.detected[0].since)).toBeGreaterThanOrEqual(3600_000);
    const html = await (await fetch(`${h.cp.url}/status/${page.slug}`)).text();
    expect(html).toContain('<title>Acme Status</title>');
    const banner = html.indexOf('Major outage');
    const current = html.indexOf('<h2>Current incidents</h2>');
    expect(banner).toBeGreaterThan(0);
    expect(current).toBeGreaterThan(banner);
    expect(html.indexOf('API is down')).toBeGreaterThan(current);
    expect(html).toContain('Search slow');
    expect(html).not.toContain('No incidents reported');
    // resolved, the page is operational and nothing is listed as current
    h.cp.db.prepare('UPDATE incidents SET resolved_at = ? WHERE url_id IN (?, ?)').run(Date.now(), api, slow);
    await h.call('PUT', `/api/users/status-pages/${page.id}`, { ...pageBody({ slug: page.slug, title: 'Acme Status' }), components: page.components.map((c: any) => ({ id: c.component_id, name: c.name, endpoint_id: c.endpoint_id })) }, token);
    const after = (await h.call('GET', `/api/public/status/${page.slug}`)).body.data;
    expect(after.detected).toEqual([]);
  });

  it("takes IANA zones (Nepal, Adelaide, Kiritimati) and 'UTC+2' aliases, refuses others, and shows the page's times in its zone", async () => {
    const { token } = await proUser();
    for (const zone of ['Asia/Kathmandu', 'Australia/Adelaide', 'Pacific/Kiritimati', 'UTC+2', 'UTC+5:30']) {
      const r = await h.call('POST', '/api/users/status-pages', pageBody({ timezone: zone }), token);
      expect(r.status, zone).toBe(201);
      expect(r.body.data.timezone).toBe(zone);
      await h.call('DELETE', `/api/users/status-pages/${r.body.data.id}`, undefined, token);
    }
    const before = (await pages(token)).length;
    expect((await h.call('POST', '/api/users/status-pages', pageBody({ timezone: 'Mars/Olympus' }), token)).body).toEqual({ success: false, error: 'Please choose a timezone from the list' });
    expect((await pages(token)).length).toBe(before);
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ timezone: 'Asia/Kathmandu', components: [{ name: 'A' }] }), token)).body.data;
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Slow', message: 'Looking', affected: [{ component_id: page.components[0].component_id, impact: 'degraded' }] }, token);
    const d = (await h.call('GET', `/api/public/status/${page.slug}`)).body.data;
    // Kathmandu is UTC+5:45: the page's last day and the update's time are Kathmandu's
    const kathmandu = (ms: number) => new Date(ms + 345 * 60_000).toISOString();
    expect(d.components[0].days.at(-1).date).toBe(kathmandu(Date.parse(d.generated_at)).slice(0, 10));
    const html = await (await fetch(`${h.cp.url}/status/${page.slug}`)).text();
    expect(html).toContain('Times in Asia/Kathmandu');
    expect(html).toContain(kathmandu(Date.parse(d.reports[0].updates[0].created_at)).slice(0, 16).replace('T', ' '));
    // the profile takes IANA names too
    expect((await h.call('PUT', '/api/users/profile', { username: 'zoned', email: (await h.call('GET', '/api/users/profile', undefined, token)).body.data.email, timezone: 'America/New_York' }, token)).status).toBe(200);
    expect((await h.call('GET', '/api/users/profile', undefined, token)).body.data.timezone).toBe('America/New_York');
  });

  it('answers Cache-Control public, max-age=30 with an ETag, 304 on If-None-Match; a change gives a new ETag', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ components: [{ name: 'A' }] }), token)).body.data;
    const url = `${h.cp.url}/api/public/status/${page.slug}`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=30');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'New', message: 'x' }, token);
    const changed = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('unpublished and unknown pages answer 404 alike (JSON, HTML, feed)', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ published: false }), token)).body.data;
    for (const s of [page.slug, 'no-such-page']) {
      const r = await h.call('GET', `/api/public/status/${s}`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, error: 'Status page not found' });
      expect((await fetch(`${h.cp.url}/status/${s}`)).status).toBe(404);
      expect((await fetch(`${h.cp.url}/status/${s}/feed.atom`)).status).toBe(404);
    }
  });

  it('serves the page as HTML readable without JavaScript, on /status/{slug} and on its custom domain', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ title: 'Widgets & Co', custom_domain: `status-${n}.widgets.example`, components: [{ name: 'Checkout', group: 'Shop' }] }), token)).body.data;
    await proveDomain(page, token);
    await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Checkout <slow>', message: 'Payments delayed', affected: [{ component_id: page.components[0].component_id, impact: 'degraded' }] }, token);
    const res = await fetch(`${h.cp.url}/status/${page.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=30');
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<h1>Widgets &amp; Co</h1>');
    expect(html).toContain('Some systems are degraded');
    expect(html).toContain('Checkout &lt;slow&gt;');
    expect(html).toContain('Payments delayed');
    expect(html.match(/class="bar( b-\w+)?"/g)).toHaveLength(90);
    expect(html).toContain('No data');
    const etag = res.headers.get('etag')!;
    expect((await fetch(`${h.cp.url}/status/${page.slug}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    // The same page at / when the Host is its custom domain (Host set through a raw request).
    const viaHost = await rawGet(h.cp.url, '/', page.custom_domain);
    expect(viaHost.status).toBe(200);
    expect(viaHost.body).toContain('<h1>Widgets &amp; Co</h1>');
    const otherHost = await rawGet(h.cp.url, '/', 'unknown.example');
    expect(otherHost.body).not.toContain('Widgets');
  });

  it('an Atom feed lists reports (one entry per update) and maintenance', async () => {
    const { token } = await proUser();
    const ep = await newEndpoint(token);
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ components: [{ name: 'API', endpoint_id: ep }] }), token)).body.data;
    const rep = (await h.call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Errors', message: 'Looking' }, token)).body.data;
    await h.call('POST', `/api/users/status-pages/${page.id}/reports/${rep.report_id}/updates`, { status: 'resolved', message: 'Fixed' }, token);
    await h.call('POST', '/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [ep], starts_at: iso(Date.now() + 86_400_000), ends_at: iso(Date.now() + 90_000_000) }, token);
    const res = await fetch(`${h.cp.url}/status/${page.slug}/feed.atom`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
    const xml = await res.text();
    expect(xml).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(xml.match(/<entry>/g)).toHaveLength(3);
    expect(xml).toContain('<title>Errors (resolved)</title>');
    expect(xml).toContain('<title>Maintenance: Upgrade (scheduled)</title>');
  });

  it('a password-protected page asks for the password (JSON 401, HTML form), opens with it, and limits wrong attempts', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', pageBody({ password: 'letmein-123', components: [{ name: 'A' }] }), token)).body.data;
    const locked = await h.call('GET', `/api/public/status/${page.slug}`);
    expect(locked.status).toBe(401);
    expect(locked.body).toEqual({ success: false, error: 'This status page is protected by a password', password_required: true });
    const ok = await fetch(`${h.cp.url}/api/public/status/${page.slug}`, { headers: { 'x-status-password': 'letmein-123' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('private, no-cache');
    const form = await fetch(`${h.cp.url}/status/${page.slug}`);
    expect(form.status).toBe(401);
    const formHtml = await form.text();
    expect(formHtml).toContain('protected by a password');
    expect(formHtml).not.toContain('class="bar');
    const post = (password: string) => fetch(`${h.cp.url}/status/${page.slug}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `password=${encodeURIComponent(password)}` });
    const right = await post('letmein-123');
    expect(right.status).toBe(303);
    const cookie = right.headers.get('set-cookie')!.split(';')[0];
    const opened = await fetch(`${h.cp.url}/status/${page.slug}`, { headers: { cookie } });
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('class="bar');
    expect((await fetch(`${h.cp.url}/status/${page.slug}`, { headers: { cookie: `${cookie}x` } })).status).toBe(401);
    let last = 0;
    for (let i = 0; i < 11; i++) last = (await post('wrong-password')).status;
    expect(last).toBe(429);
  });
});
