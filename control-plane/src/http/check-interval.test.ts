// An endpoint's own check interval (`check_frequency_seconds` on the endpoint body): down to its
// plan's `check_frequency_seconds` (shorter: 403 in the plan style), carried by the agents'
// assignments, kept by edits that say nothing of it only when a plan change rewrites the row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { checksForEndpoint } from '../services/check-placement';
import { createEndpointsRepo } from '../store/endpoints-repo';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let token: string;
let email: string;
beforeAll(async () => {
  h = await startHarness();
  const s = await h.signup();
  token = s.token;
  email = s.user.email;
  await h.setPackage(email, 'Starter'); // 60-second checks
});
afterAll(async () => h?.close());

const create = (body: Record<string, unknown>) => h.call('POST', '/api/users/endpoints', { regions: ['EU-Germany'], response_code: true, ...body }, token);
const intervals = (urlId: number) => checksForEndpoint(createEndpointsRepo(h.cp.db).monitoredById(urlId)!, 'EU-Germany').map((c) => c.interval_seconds);

describe('check_frequency_seconds on an endpoint', () => {
  it('is chosen per endpoint, answered back, and carried by the assignment; absent means the plan\'s', async () => {
    const dash = (await h.call('GET', '/api/users/dashboard', undefined, token)).body.data;
    expect(dash.check_frequency_seconds).toBe(60);
    const plain = await create({ name: 'Plain', url: 'https://plain-interval.example.com/' });
    expect(plain.status).toBe(201);
    expect(plain.body.data.check_frequency_seconds).toBeUndefined();
    expect(intervals(plain.body.data.url_id)).toEqual([60]);

    const slow = await create({ name: 'Slow', url: 'https://slow-interval.example.com/', check_frequency_seconds: 600 });
    expect(slow.status).toBe(201);
    expect(slow.body.data.check_frequency_seconds).toBe(600);
    const id = slow.body.data.url_id as number;
    expect(intervals(id)).toEqual([600]);
    expect((await h.call('GET', `/api/users/endpoints/${id}`, undefined, token)).body.data.check_frequency_seconds).toBe(600);
    const listed = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data as Array<{ url_id: number; check_frequency_seconds?: number }>;
    expect(listed.find((e) => e.url_id === id)!.check_frequency_seconds).toBe(600);

    // an edit changes it; a PUT without it goes back to the plan's (PUT replaces the endpoint)
    await h.call('PUT', `/api/users/endpoints/${id}`, { name: 'Slow', url: 'https://slow-interval.example.com/', regions: ['EU-Germany'], check_frequency_seconds: 120 }, token);
    expect(intervals(id)).toEqual([120]);
    await h.call('PUT', `/api/users/endpoints/${id}`, { name: 'Slow', url: 'https://slow-interval.example.com/', regions: ['EU-Germany'] }, token);
    expect(intervals(id)).toEqual([60]);
  });

  it('refuses an interval shorter than the plan\'s with 403 in the plan style, and bad values with 400; nothing is stored', async () => {
    const before = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data.length;
    const fast = await create({ name: 'Fast', url: 'https://fast-interval.example.com/', check_frequency_seconds: 30 });
    expect(fast.status).toBe(403);
    expect(fast.body).toEqual({ success: false, error: MESSAGES.intervalNotInPlan(60, 'Starter') });
    expect(fast.body.error).toBe('Your Starter plan checks at most every 60 seconds. Please upgrade for more frequent checks.');
    for (const bad of [0, 1.5, 'often', 86_401]) {
      const r = await create({ name: 'Bad', url: 'https://bad-interval.example.com/', check_frequency_seconds: bad });
      expect(r.status, String(bad)).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'check_frequency_seconds must be a whole number of seconds from 1 to 86400' });
    }
    const beat = await create({ name: 'Beat', kind: 'heartbeat', period_seconds: 3600, check_frequency_seconds: 600, regions: [] });
    expect(beat.status).toBe(400);
    expect(beat.body.error).toMatch(/heartbeat has no check interval/);
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data.length).toBe(before);
  });

  it('never runs faster than the plan: after a downgrade the plan\'s interval wins, after an upgrade the endpoint\'s own again', async () => {
    const r = await create({ name: 'Minute', url: 'https://minute-interval.example.com/', check_frequency_seconds: 120 });
    const id = r.body.data.url_id as number;
    await h.setPackage(email, 'Free'); // 5-minute checks
    expect(intervals(id)).toEqual([300]);
    await h.setPackage(email, 'Starter');
    expect(intervals(id)).toEqual([120]);
  });
});
