// Status pages' public edges over real HTTP and SQLite: the password limit per client (an IPv6 /64
// is one client), what an unpublished page's subscription links show, and custom domains (proved by
// a DNS TXT record served from a real DNS server on loopback, a paid plan, the product's own host refused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES, type Package } from '@upfleet/proto/rest';
import { pricingLines } from '@upfleet/proto/plan';
import { DOMAIN_FIRST, OWN_HOST_DOMAIN } from '../services/status-pages';
import { startDnsServer, type LocalDnsServer } from '../testing/dns-server';
import { startHarness, type Harness } from '../testing/harness';
import { rawGet } from '../testing/raw-http';

let h: Harness;
let dns: LocalDnsServer;
let clock = Date.now();
beforeAll(async () => {
  dns = await startDnsServer();
  h = await startHarness(
    { TRUST_PROXY: 'loopback', DNS_RESOLVERS: dns.address, PUBLIC_URL: 'https://app.upfleet.test' },
    { results: null, now: () => clock, domainCheckTickMs: 200 },
  );
});
afterAll(async () => {
  await h?.close();
  await dns?.close();
});
const plan = async (name: string): Promise<Package> =>
  ((await h.call('GET', '/api/public/packages')).body.data as Package[]).find((p) => p.package_name === name)!;

let n = 0;
const slug = () => `dom-${process.pid}-${++n}`;
const proUser = async () => {
  const u = await h.signup();
  await h.setPackage(u.user.email, 'Pro');
  return u;
};

describe('status page password limit', () => {
  it('counts wrong passwords from one IPv6 /64 as one client, and another /64 as another', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Locked', password: 'letmein-123' }, token)).body.data;
    const from = async (ip: string, password = 'wrong-password') =>
      (await fetch(`${h.cp.url}/api/public/status/${page.slug}`, { headers: { 'x-forwarded-for': ip, 'x-status-password': password } })).status;
    // each guess from a fresh address inside 2001:db8:7:7::/64
    for (let i = 1; i <= 10; i++) expect(await from(`2001:db8:7:7::${i.toString(16)}`)).toBe(401);
    expect(await from('2001:db8:7:7:ffff::1')).toBe(429);
    expect(await from('2001:db8:7:7:ffff::2', 'letmein-123')).toBe(429);
    expect(await from('2001:db8:7:8::1', 'letmein-123')).toBe(200);
  });
});

describe('subscription links of an unpublished page', () => {
  it('show neither the page\'s title nor a link back to it', async () => {
    const { token } = await proUser();
    const page = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Secret Launch Project', published: false }, token)).body.data;
    for (const path of ['unsubscribe', 'confirm']) {
      const res = await fetch(`${h.cp.url}/status/${page.slug}/${path}?token=not-a-token`);
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('This link is not valid');
      expect(html).not.toContain('Secret Launch Project');
      expect(html).not.toContain('Back to the status page');
    }
    // a published page keeps its title there
    const open = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Open Project' }, token)).body.data;
    expect(await (await fetch(`${h.cp.url}/status/${open.slug}/unsubscribe?token=not-a-token`)).text()).toContain('Open Project');
  });
});

describe('custom domains', () => {
  const record = (domain: string) => `_upfleet-challenge.${domain}`;
  const verify = (id: number, token: string) => h.call('POST', `/api/users/status-pages/${id}/verify-domain`, undefined, token);
  const served = async (domain: string, title: string) => (await rawGet(h.cp.url, '/', domain)).body.includes(`<h1>${title}</h1>`);

  it('needs a paid plan (403) and is never this server\'s host or one of its subdomains (400); nothing changes', async () => {
    const free = await h.signup();
    const refused = await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Free', custom_domain: 'status.free-owner.example' }, free.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: MESSAGES.customDomainsNotInPlan });
    expect((await h.call('GET', '/api/users/status-pages', undefined, free.token)).body.data).toEqual([]);
    expect(pricingLines({ ...(await plan('Free')) })).not.toContain('Custom domains for status pages');
    expect(pricingLines({ ...(await plan('Starter')) })).toContain('Custom domains for status pages');

    const { token } = await proUser();
    for (const own of ['app.upfleet.test', 'APP.Upfleet.test', 'status.app.upfleet.test', 'a.b.app.upfleet.test']) {
      const r = await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Mine', custom_domain: own }, token);
      expect(r.status, own).toBe(400);
      expect(r.body).toEqual({ success: false, error: OWN_HOST_DOMAIN });
    }
    expect((await h.call('GET', '/api/users/status-pages', undefined, token)).body.data).toEqual([]);
    const page = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Mine' }, token)).body.data;
    const put = await h.call('PUT', `/api/users/status-pages/${page.id}`, { slug: page.slug, title: 'Mine', custom_domain: 'app.upfleet.test' }, token);
    expect(put.status).toBe(400);
    expect((await h.call('GET', `/api/users/status-pages/${page.id}`, undefined, token)).body.data.custom_domain).toBeNull();
    // a name that merely ends like the host is someone else's
    expect((await h.call('PUT', `/api/users/status-pages/${page.id}`, { slug: page.slug, title: 'Mine', custom_domain: 'notapp.upfleet.test' }, token)).status).toBe(200);
  });

  it('serves a custom domain only once its TXT record holds the page\'s token; verify-domain answers whether it was found', async () => {
    const { token } = await proUser();
    const domain = `status-${n}.acme.example`;
    const page = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Acme Proof', custom_domain: domain }, token)).body.data;
    expect(page).toMatchObject({ custom_domain: domain, custom_domain_verified: false });
    expect(page.custom_domain_token).toMatch(/^[0-9a-f]{32}$/);
    expect(await served(domain, 'Acme Proof')).toBe(false);

    const missing = await verify(page.id, token);
    expect(missing.status).toBe(200);
    expect(missing.body.data).toEqual({ found: false, custom_domain: domain, custom_domain_verified: false, record_name: record(domain), record_value: page.custom_domain_token });
    dns.txt.set(record(domain), ['someone-elses-token']);
    expect((await verify(page.id, token)).body.data.found).toBe(false);
    expect(await served(domain, 'Acme Proof')).toBe(false);

    dns.txt.set(record(domain), ['someone-elses-token', page.custom_domain_token]);
    expect((await verify(page.id, token)).body.data).toMatchObject({ found: true, custom_domain_verified: true });
    expect(dns.queries).toContain(`${record(domain)}:TXT`);
    expect((await h.call('GET', `/api/users/status-pages/${page.id}`, undefined, token)).body.data).toMatchObject({ custom_domain: domain, custom_domain_verified: true });
    expect(await served(domain, 'Acme Proof')).toBe(true);
    // its feed links to the domain itself (https, as PUBLIC_URL is), whatever else a client says
    const feed = await rawGet(h.cp.url, '/feed.atom', domain);
    expect(feed.status).toBe(200);
    expect(feed.body).toContain(`<link rel="self" href="https://${domain}/feed.atom"/>`);
    expect(feed.body).toContain(`<link rel="alternate" href="https://${domain}"/>`);

    // Another name is a new claim: unproved, not served, until its own record is found.
    const moved = `other-${n}.acme.example`;
    const put = await h.call('PUT', `/api/users/status-pages/${page.id}`, { slug: page.slug, title: 'Acme Proof', custom_domain: moved }, token);
    expect(put.body.data).toMatchObject({ custom_domain: moved, custom_domain_verified: false });
    expect(await served(domain, 'Acme Proof')).toBe(false);
    expect(await served(moved, 'Acme Proof')).toBe(false);
  });

  it('an unproved claim blocks nobody; the owner who proves the name takes it from every other page', async () => {
    const squatter = await proUser();
    const owner = await proUser();
    const domain = `status-${n}.owner.example`;
    const early = await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Squatted', custom_domain: domain }, squatter.token);
    expect(early.status).toBe(201);
    const mine = await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Real Owner', custom_domain: domain }, owner.token);
    expect(mine.status).toBe(201);
    // The daily check looks at new claims at once (every 200 ms here): let it find both unproved before
    // the record exists, so that the verify calls below, not the timer, are what proves the name.
    const checked = () => h.cp.db.prepare('SELECT COUNT(*) FROM status_pages WHERE page_id IN (?, ?) AND custom_domain_checked_at IS NOT NULL')
      .pluck().get(early.body.data.id, mine.body.data.id) as number;
    for (let i = 0; i < 100 && checked() < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(checked()).toBe(2);

    dns.txt.set(record(domain), [mine.body.data.custom_domain_token]);
    expect((await verify(early.body.data.id, squatter.token)).body.data).toMatchObject({ found: false, custom_domain_verified: false });
    expect((await verify(mine.body.data.id, owner.token)).body.data).toMatchObject({ found: true, custom_domain_verified: true });
    expect(await served(domain, 'Real Owner')).toBe(true);

    // the squatter's claim is gone; the proved name is now taken
    expect((await h.call('GET', `/api/users/status-pages/${early.body.data.id}`, undefined, squatter.token)).body.data).toMatchObject({ custom_domain: null, custom_domain_verified: false });
    const again = await h.call('PUT', `/api/users/status-pages/${early.body.data.id}`, { slug: early.body.data.slug, title: 'Squatted', custom_domain: domain }, squatter.token);
    expect(again.status).toBe(409);
    const none = await verify(early.body.data.id, squatter.token);
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ success: false, error: DOMAIN_FIRST });
  });

  it('verify-domain is an admin\'s and stays in its workspace: editors and viewers get 403, another workspace\'s page 404', async () => {
    const owner = await h.signup();
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Team domains' }, owner.token)).body.data.id as number;
    const account = ((await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>).find((w) => w.id === ws)!;
    await h.setPackage(account.account_email, 'Pro');
    const inWs = { 'x-workspace-id': String(ws) };
    const member = async (role: string) => {
      const who = await h.signup();
      const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: who.user.email, role }, owner.token);
      const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
      expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, who.token)).status).toBe(200);
      return who.token;
    };
    const domain = `team-${n}.acme.example`;
    const page = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Team Proof', custom_domain: domain }, owner.token, inWs)).body.data;
    for (const role of ['viewer', 'editor']) {
      const r = await h.call('POST', `/api/users/status-pages/${page.id}/verify-domain`, undefined, await member(role), inWs);
      expect(r.status, role).toBe(403);
      expect(r.body.success).toBe(false);
    }
    const outsider = await proUser();
    const foreign = await verify(page.id, outsider.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ success: false, error: 'Status page not found' });
    const admin = await member('admin');
    const asAdmin = () => h.call('POST', `/api/users/status-pages/${page.id}/verify-domain`, undefined, admin, inWs);
    expect((await asAdmin()).body.data).toMatchObject({ found: false, custom_domain_verified: false });
    dns.txt.set(record(domain), [page.custom_domain_token]);
    expect((await asAdmin()).body.data).toMatchObject({ found: true, custom_domain_verified: true });
    expect(await served(domain, 'Team Proof')).toBe(true);
  });

  it('checks proved domains again daily: a record that is gone stops the domain', async () => {
    const { token } = await proUser();
    const domain = `daily-${n}.acme.example`;
    const page = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Daily Proof', custom_domain: domain }, token)).body.data;
    dns.txt.set(record(domain), [page.custom_domain_token]);
    expect((await verify(page.id, token)).body.data.custom_domain_verified).toBe(true);
    expect(await served(domain, 'Daily Proof')).toBe(true);
    dns.txt.delete(record(domain));
    // not yet a day: the timer leaves it alone
    await new Promise((r) => setTimeout(r, 500));
    expect(await served(domain, 'Daily Proof')).toBe(true);
    clock += 25 * 3_600_000;
    const until = Date.now() + 15_000;
    while ((await served(domain, 'Daily Proof')) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await served(domain, 'Daily Proof')).toBe(false);
  });
});

describe('Atom feed links without PUBLIC_URL', () => {
  let bare: Harness;
  beforeAll(async () => {
    bare = await startHarness({});
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('come from the Host only when it is a valid host name, with Vary: Host; PUBLIC_URL (elsewhere) wins', async () => {
    const u = await bare.signup();
    const page = (await bare.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Feed' }, u.token)).body.data;
    for (const bad of ['evil.example"><script>', 'a b.example', 'x.example:99999']) {
      const r = await rawGet(bare.cp.url, `/status/${page.slug}/feed.atom`, bad);
      expect(r.status, bad).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ success: false, error: 'This request names no valid host.' });
    }
    const ok = await rawGet(bare.cp.url, `/status/${page.slug}/feed.atom`, 'status.example.org:8443');
    expect(ok.status).toBe(200);
    expect(ok.body).toContain(`<link rel="self" href="http://status.example.org:8443/status/${page.slug}/feed.atom"/>`);
    expect(ok.headers.vary).toMatch(/\bHost\b/i);
    // with PUBLIC_URL (the other server here) the Host is not read at all
    const other = await proUser();
    const onPublic = (await h.call('POST', '/api/users/status-pages', { slug: slug(), title: 'Feed' }, other.token)).body.data;
    const viaPublic = await rawGet(h.cp.url, `/status/${onPublic.slug}/feed.atom`, 'evil.example');
    expect(viaPublic.status).toBe(200);
    expect(viaPublic.body).toContain(`<link rel="self" href="https://app.upfleet.test/status/${onPublic.slug}/feed.atom"/>`);
    expect(viaPublic.body).not.toContain('evil.example');
  });
});
