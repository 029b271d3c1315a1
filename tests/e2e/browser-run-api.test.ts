// "Run now" of a browser check over REST: the real control plane, a real agent process with Debian's
// Chromium, a loopback login page. A pass, a failure with its screenshot, no agent (503), another
// workspace's url_id (404), a viewer (403); nothing of a run is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, waitFor } from '../helpers/api';
import { createAgentToken, startAgentProcess, type AgentProcess } from '../helpers/agent-process';
import { LOGIN_PASSWORD, LOGIN_STEPS, startLoginPage, type LoginPage } from '../helpers/login-page';
import { startStack, type Stack } from '../helpers/start-stack';

let stack: Stack;
let agent: AgentProcess | undefined;
let page: LoginPage;
const api = apiFor(() => stack);
const RUN = '/api/users/endpoints/browser-run';

beforeAll(async () => {
  [stack, page] = await Promise.all([startStack(), startLoginPage()]);
}, 120_000);
afterAll(async () => {
  await agent?.stop();
  await stack?.stop();
  await page?.close();
});

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('POST /api/users/endpoints/browser-run', () => {
  let owner: string;

  it('answers 503 when no agent that can run browser checks is connected', async () => {
    owner = await api.signup('runowner', 'Pro');
    const r = await api.call('POST', RUN, { url: `${page.url}/login`, steps: [] }, owner);
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ success: false, error: 'No agent that can run browser checks is connected' });
  });

  it('runs the steps on the agent and answers ok with step times and the screenshot; the secret never comes back', async () => {
    agent = startAgentProcess(stack, { token: await createAgentToken(stack) });
    const body = { url: `${page.url}/login`, steps: LOGIN_STEPS, timeout_seconds: 30 };
    const r = await waitFor('a run on the agent', async () => {
      const x = await api.call('POST', RUN, body, owner);
      return x.status === 503 ? undefined : x;
    }, 60_000, 500);
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    const d = r.body.data;
    expect(d).toMatchObject({ ok: true, error: '', failed_step: 0, failed_action: '', region: 'EU-Germany' });
    expect(d.step_ms).toHaveLength(LOGIN_STEPS.length);
    expect(d.total_ms).toBeGreaterThan(0);
    expect(d.screenshots).toHaveLength(1);
    expect(d.screenshots[0]).toMatchObject({ name: 'signed in', mime: expect.stringMatching(/^image\/(png|webp)$/), step: 5 });
    const img = Buffer.from(d.screenshots[0].data_base64, 'base64');
    if (d.screenshots[0].mime === 'image/png') expect(img.subarray(0, 4).equals(PNG)).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(LOGIN_PASSWORD);
  }, 90_000);

  it('answers a failing step with its index, action and reason, and a failure screenshot', async () => {
    const steps = [...LOGIN_STEPS.slice(0, 3), { action: 'expect_text', selector: 'h1', contains: 'Goodbye' }];
    const r = await api.call('POST', RUN, { url: `${page.url}/login`, steps, timeout_seconds: 15 }, owner);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ ok: false, failed_step: 4, failed_action: 'expect_text' });
    expect(r.body.data.error).toMatch(/Goodbye/);
    expect(r.body.data.screenshots.map((s: { name: string }) => s.name)).toContain('failure');
    // a failed Run now is no incident
    expect((await api.call('GET', '/api/users/incidents', undefined, owner)).body.data).toEqual([]);
  }, 60_000);

  it('refuses a bad step naming it, and nothing of a run is saved as an endpoint', async () => {
    const r = await api.call('POST', RUN, { url: `${page.url}/login`, steps: [{ action: 'click' }] }, owner);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'Step 1 (click): selector is required' });
    const list = await api.call('GET', '/api/users/endpoints-with-uptime', undefined, owner);
    expect(list.body.data).toHaveLength(0);
  });

  it('takes a secret left blank from the saved endpoint, and answers 404 for another workspace\'s url_id', async () => {
    const saved = await api.call('POST', '/api/users/endpoints', {
      name: 'Login', kind: 'browser', url: `${page.url}/login`, steps: LOGIN_STEPS, check_frequency_seconds: 300,
    }, owner);
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const urlId = saved.body.data.url_id as number;
    const blank = LOGIN_STEPS.map((s) => (s.secret ? { action: s.action, selector: s.selector, secret: true } : s));
    const r = await api.call('POST', RUN, { url: `${page.url}/login`, steps: blank, url_id: urlId }, owner);
    expect(r.status).toBe(200);
    expect(r.body.data.ok).toBe(true);
    const other = await api.signup('runother', 'Pro');
    const foreign = await api.call('POST', RUN, { url: `${page.url}/login`, steps: blank, url_id: urlId }, other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.success).toBe(false);
  }, 60_000);

  it('refuses a viewer of the workspace with 403', async () => {
    const me = await api.call('GET', '/api/workspaces', undefined, owner);
    const ws = (me.body.data as Array<{ id: number; personal: boolean }>).find((w) => w.personal)!.id;
    const viewer = await api.signup('runviewer');
    const inv = await api.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'runviewer@example.com', role: 'viewer' }, owner);
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
    expect((await api.call('POST', `/api/invitations/${token}/accept`, undefined, viewer)).status).toBe(200);
    const res = await fetch(`${stack.baseUrl}${RUN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${viewer}`, 'x-workspace-id': String(ws) },
      body: JSON.stringify({ url: `${page.url}/login`, steps: [] }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { success: boolean }).success).toBe(false);
  });
});
