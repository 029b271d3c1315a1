// Over REST: a browser endpoint (url, steps, timeout_seconds), its steps' validation (a 400 naming the
// step and why, nothing stored), secret fill values sealed at rest and write-only, the private-target
// rule on goto steps, and what the assignment carries to the agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksForEndpoint } from '../services/check-placement';
import { createEndpointsRepo } from '../store/endpoints-repo';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let pro: string;
let strict: Harness;
let strictToken: string;

beforeAll(async () => {
  h = await startHarness();
  const a = await h.signup('browser_pro');
  await h.setPackage(a.user.email, 'Pro');
  pro = a.token;
  strict = await startHarness({ ALLOW_PRIVATE_TARGETS: '0' });
  const s = await strict.signup('browser_strict');
  await strict.setPackage(s.user.email, 'Pro');
  strictToken = s.token;
});
afterAll(async () => {
  await h.close();
  await strict.close();
});

const create = (body: Record<string, unknown>, token = pro, harness = h) => harness.call('POST', '/api/users/endpoints', { regions: ['EU-Germany'], kind: 'browser', ...body }, token);
const count = async () => ((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, pro)).body.data as unknown[]).length;

const LOGIN = [
  { action: 'fill', selector: '#user', value: 'ada' },
  { action: 'fill', selector: '#password', value: 'hunter2-secret', secret: true },
  { action: 'click', selector: 'role=button[name="Sign in"]' },
  { action: 'wait_for', text: 'Welcome' },
  { action: 'expect_text', selector: 'h1', contains: 'Welcome' },
  { action: 'expect_title', contains: 'Dashboard' },
  { action: 'expect_url', contains: '/home' },
  { action: 'press', key: 'Enter' },
  { action: 'expect_no_console_errors' },
  { action: 'screenshot', name: 'after login' },
  { action: 'goto', url: 'https://shop.example.com/cart' },
];

describe('browser endpoints over the API', () => {
  it('creates a browser check with its steps and a default 30 s timeout; a secret fill value is sealed at rest and never answered', async () => {
    const r = await create({ name: 'Login', url: 'https://app.example.com/login', steps: LOGIN });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ kind: 'browser', url: 'https://app.example.com/login', timeout_seconds: 30 });
    const steps = r.body.data.steps as Array<Record<string, unknown>>;
    expect(steps).toHaveLength(LOGIN.length);
    expect(steps[1]).toEqual({ action: 'fill', selector: '#password', secret: true });
    expect(steps[0]).toEqual({ action: 'fill', selector: '#user', value: 'ada' });
    expect(steps[3]).toEqual({ action: 'wait_for', text: 'Welcome', state: 'visible' });
    const id = r.body.data.url_id as number;
    const stored = h.cp.db.prepare('SELECT config FROM endpoint_checks WHERE url_id = ?').pluck().get(id) as string;
    expect(stored).not.toContain('hunter2-secret');
    const all = JSON.stringify([(await h.call('GET', `/api/users/endpoints/${id}`, undefined, pro)).body, (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, pro)).body]);
    expect(all).not.toContain('hunter2-secret');
    const audit = h.cp.db.prepare('SELECT summary FROM audit_log').pluck().all() as string[];
    expect(audit.join('\n')).not.toContain('hunter2-secret');
  });

  it('an edit without the secret value keeps it; the agent gets it in clear with the steps and the timeout', async () => {
    const r = await create({ name: 'Keep', url: 'https://keep.example.com/', steps: [{ action: 'fill', selector: '#pw', value: 'first-secret', secret: true }], timeout_seconds: 45 });
    const id = r.body.data.url_id as number;
    const put = await h.call('PUT', `/api/users/endpoints/${id}`, {
      name: 'Keep 2', kind: 'browser', url: 'https://keep.example.com/', regions: ['EU-Germany'], timeout_seconds: 45,
      steps: [{ action: 'fill', selector: '#pw', secret: true }, { action: 'click', selector: '#go' }],
    }, pro);
    expect(put.status).toBe(200);
    expect(put.body.data.steps).toEqual([{ action: 'fill', selector: '#pw', secret: true }, { action: 'click', selector: '#go' }]);
    const { createSecretBox } = await import('../lib/crypto');
    const { loadMasterKey, deriveKey } = await import('../lib/secrets-files');
    const repo = createEndpointsRepo(h.cp.db, createSecretBox(deriveKey(loadMasterKey(h.dataDir, null), 'secrets-at-rest')));
    const [a] = checksForEndpoint(repo.monitoredById(id)!, 'EU-Germany');
    expect(a).toMatchObject({ kind: 'CHECK_KIND_BROWSER', url: 'https://keep.example.com/', timeout_ms: 45_000, check_id: `${id}:browser:EU-Germany` });
    expect(a.interval_seconds).toBeGreaterThanOrEqual(300);
    expect(a.steps![0]).toMatchObject({ action: 'fill', selector: '#pw', value: 'first-secret', secret: true });
    expect(a.steps![1]).toMatchObject({ action: 'click', selector: '#go', value: '', secret: false });
    // a secret fill for a selector with nothing stored needs its value
    const bad = await h.call('PUT', `/api/users/endpoints/${id}`, {
      name: 'Keep 2', kind: 'browser', url: 'https://keep.example.com/', regions: ['EU-Germany'], steps: [{ action: 'fill', selector: '#other', secret: true }],
    }, pro);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: 'Step 1 (fill): value is required' });
  });

  it.each([
    [[{ action: 'hover', selector: 'a' }], 'Step 1: action must be one of goto, click, fill, press, wait_for, expect_text, expect_title, expect_url, expect_no_console_errors, screenshot'],
    [[{ action: 'click', selector: '#a' }, { action: 'click' }], 'Step 2 (click): selector is required'],
    [[{ action: 'click', selector: 'xpath=//a' }], 'Step 1 (click): selector must be CSS or a text= / role= selector'],
    [[{ action: 'click', selector: '#a >> text=b' }], 'Step 1 (click): selector must be CSS or a text= / role= selector (no >> chains)'],
    [[{ action: 'goto', url: 'file:///etc/passwd' }], 'Step 1 (goto): url must be an absolute http:// or https:// URL without a username or password'],
    [[{ action: 'fill', selector: '#a' }], 'Step 1 (fill): value is required'],
    [[{ action: 'wait_for', selector: '#a', text: 'b' }], 'Step 1 (wait_for): give either selector or text'],
    [[{ action: 'wait_for', selector: '#a', state: 'gone' }], 'Step 1 (wait_for): state must be one of visible, hidden, attached, detached'],
    [[{ action: 'expect_text', contains: 'a', equals: 'b' }], 'Step 1 (expect_text): give either contains or equals'],
    [[{ action: 'expect_title', url: 'https://x.example.com/' }], 'Step 1 (expect_title): url is not a field of expect_title'],
    [[{ action: 'press', key: 'Enter; rm -rf' }], 'Step 1 (press): key must be a key name such as Enter, Tab or Control+A'],
    [[{ action: 'screenshot', name: '../etc' }], 'Step 1 (screenshot): name must be 1 to 60 letters, digits, spaces, dots, dashes or underscores'],
    [[{ action: 'screenshot', name: 'x' }, 'oops'], 'Step 2: must be an object with an action'],
    [Array.from({ length: 21 }, () => ({ action: 'expect_no_console_errors' })), 'At most 20 steps'],
  ])('refuses bad steps with a 400 naming the step: %j', async (steps, error) => {
    const before = await count();
    const r = await create({ name: 'Bad', url: 'https://bad.example.com/', steps });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error });
    expect(await count()).toBe(before);
  });

  it('refuses a timeout over 60 s, a browser check without url, and steps on other kinds', async () => {
    expect((await create({ name: 'T', url: 'https://t.example.com/', timeout_seconds: 61 })).body).toEqual({ success: false, error: 'timeout_seconds must be a whole number from 1 to 60' });
    expect((await create({ name: 'T' })).body).toEqual({ success: false, error: 'URL is required' });
    const http = await h.call('POST', '/api/users/endpoints', { name: 'H', url: 'https://h.example.com/', regions: ['EU-Germany'], steps: [] }, pro);
    expect(http.body).toEqual({ success: false, error: 'steps and timeout_seconds are for browser checks' });
  });
});

describe('browser checks and private targets (ALLOW_PRIVATE_TARGETS=0)', () => {
  it('refuses a private URL and a goto step to a private address', async () => {
    expect((await create({ name: 'P', url: 'http://169.254.169.254/' }, strictToken, strict)).body).toEqual({ success: false, error: 'URL must point to a public address' });
    const r = await create({ name: 'P', url: 'https://public.example.com/', steps: [{ action: 'click', selector: 'a' }, { action: 'goto', url: 'http://10.0.0.5/admin' }] }, strictToken, strict);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'Step 2 (goto): url must point to a public address' });
    expect((await create({ name: 'P', url: 'https://public.example.com/', steps: [{ action: 'goto', url: 'https://example.org/' }] }, strictToken, strict)).status).toBe(201);
  });
});
