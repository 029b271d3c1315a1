// Page routes answer pages: a browser's load of /dashboard (or a status page) never shows API JSON,
// even while the web app's index.html is missing (a rebuild empties dist under a running server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/harness';

const PAGE = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('page routes', () => {
  let h: Harness;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
    h = await startHarness({ WEB_DIST_DIR: dist });
  });
  afterAll(async () => {
    await h?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves the app for /dashboard, and a page saying to reload (not JSON) while index.html is being replaced', async () => {
    const ok = await fetch(`${h.cp.url}/dashboard`, { headers: PAGE });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('<div id="root">');

    fs.renameSync(path.join(dist, 'index.html'), path.join(dist, 'index.old'));
    try {
      const res = await fetch(`${h.cp.url}/dashboard`, { headers: PAGE });
      const body = await res.text();
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(body).toContain('Reload this page in a few seconds');
      expect(body).not.toContain('"success"');
    } finally {
      fs.renameSync(path.join(dist, 'index.old'), path.join(dist, 'index.html'));
    }
    expect((await fetch(`${h.cp.url}/dashboard`, { headers: PAGE })).status).toBe(200);
  });

  it('answers an unknown status page and a bad subscribe form with HTML pages, and the API with JSON as before', async () => {
    const page = await fetch(`${h.cp.url}/status/no-such-page`, { headers: PAGE });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<h1>Status page not found</h1>');

    // The subscribe form without JavaScript: a bad address is a page saying so.
    const { token, user } = await h.signup();
    await h.setPackage(user.email, 'Pro');
    const sp = await h.call('POST', '/api/users/status-pages', { slug: 'web-pages-acme', title: 'Acme', description: '', components: [] }, token);
    expect(sp.status).toBe(201);
    const form = await fetch(`${h.cp.url}/status/web-pages-acme/subscribe`, {
      method: 'POST', headers: { ...PAGE, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=not-an-address',
    });
    expect(form.status).toBe(400);
    expect(form.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await form.text()).toContain('Please go back and try again.');

    const api = await h.call('GET', '/api/public/status/no-such-page', undefined, undefined, PAGE);
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ success: false, error: 'Status page not found' });
  });
});
