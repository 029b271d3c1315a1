// Over REST, what "Run now" refuses before any agent is asked: a plan without browser checks, a bad
// step (named), a private address when private targets are denied, a region that does not exist,
// another workspace's url_id; with no agent connected it is a 503; runs are counted per workspace
// (429 past the allowance). The runs themselves: tests/e2e/browser-run-api.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { BROWSER_RUNS_PER_WINDOW } from '../services/rate-limiter';
import { NO_BROWSER_AGENT } from '../services/run-now';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let strict: Harness;
const RUN = '/api/users/endpoints/browser-run';
const body = { url: 'https://app.example.com/login', steps: [{ action: 'click', selector: '#go' }] };

beforeAll(async () => {
  h = await startHarness();
  strict = await startHarness({ ALLOW_PRIVATE_TARGETS: '0' });
});
afterAll(async () => {
  await h.close();
  await strict.close();
});

describe('POST /api/users/endpoints/browser-run refusals', () => {
  it('refuses a plan without browser checks with the plan message', async () => {
    const free = await h.signup('run_free');
    const r = await h.call('POST', RUN, body, free.token);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, error: MESSAGES.tooManyBrowserChecks(0, 'Free') });
  });

  it('names a bad step, refuses an unknown region, and answers 503 with no agent connected', async () => {
    const u = await h.signup('run_pro');
    await h.setPackage(u.user.email, 'Pro');
    const bad = await h.call('POST', RUN, { ...body, steps: [{ action: 'fill', selector: '#pw' }] }, u.token);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: 'Step 1 (fill): value is required' });
    const region = await h.call('POST', RUN, { ...body, region: 'XX-Nowhere' }, u.token);
    expect(region.status).toBe(400);
    expect(region.body.error).toBe('Unknown region: XX-Nowhere');
    const r = await h.call('POST', RUN, body, u.token);
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ success: false, error: NO_BROWSER_AGENT });
  });

  it('answers 404 for another workspace\'s url_id, as for one that does not exist', async () => {
    const owner = await h.signup('run_owner');
    await h.setPackage(owner.user.email, 'Pro');
    const saved = await h.call('POST', '/api/users/endpoints', {
      name: 'Login', kind: 'browser', url: 'https://app.example.com/login', check_frequency_seconds: 300,
      steps: [{ action: 'fill', selector: '#pw', value: 'owner-secret', secret: true }],
    }, owner.token);
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const other = await h.signup('run_other');
    await h.setPackage(other.user.email, 'Pro');
    const steps = [{ action: 'fill', selector: '#pw', secret: true }];
    const foreign = await h.call('POST', RUN, { url: 'https://app.example.com/login', steps, url_id: saved.body.data.url_id }, other.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ success: false, error: 'Endpoint not found' });
    // the owner's own url_id supplies the kept secret: past validation, to the (absent) agent
    const own = await h.call('POST', RUN, { url: 'https://app.example.com/login', steps, url_id: saved.body.data.url_id }, owner.token);
    expect(own.status).toBe(503);
  });

  it('refuses private addresses, in the URL and in goto steps, when private targets are denied', async () => {
    const u = await strict.signup('run_strict');
    await strict.setPackage(u.user.email, 'Pro');
    const page = await strict.call('POST', RUN, { url: 'http://127.0.0.1:8080/', steps: [] }, u.token);
    expect(page.status).toBe(400);
    expect(page.body.error).toBe('URL must point to a public address');
    const step = await strict.call('POST', RUN, { url: 'https://app.example.com/', steps: [{ action: 'goto', url: 'http://169.254.169.254/' }] }, u.token);
    expect(step.status).toBe(400);
    expect(step.body.error).toBe('Step 1 (goto): url must point to a public address');
  });

  it(`counts runs per workspace: the run past ${BROWSER_RUNS_PER_WINDOW} in ten minutes answers 429`, async () => {
    const u = await h.signup('run_many');
    await h.setPackage(u.user.email, 'Pro');
    for (let i = 0; i < BROWSER_RUNS_PER_WINDOW; i++) expect((await h.call('POST', RUN, body, u.token)).status).toBe(503);
    const r = await h.call('POST', RUN, body, u.token);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ success: false, error: 'Too many browser runs. Please wait a few minutes and try again.' });
    // another workspace has its own allowance
    const v = await h.signup('run_few');
    await h.setPackage(v.user.email, 'Pro');
    expect((await h.call('POST', RUN, body, v.token)).status).toBe(503);
  });
});
