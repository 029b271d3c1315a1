// ALLOW_PRIVATE_TARGETS=0: every way of writing a private address is refused when an endpoint is
// created or edited (the agent refuses names resolving to private addresses at connect time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({ ALLOW_PRIVATE_TARGETS: '0' });
  token = (await h.signup()).token;
});
afterAll(() => h.close());

const body = (url: string) => ({ name: 'Target', url, regions: ['EU-Germany'], response_code: true });

describe('private targets refused at create time', () => {
  it.each([
    'http://[::ffff:127.0.0.1]/', 'http://[::ffff:169.254.169.254]/latest/meta-data/', 'http://[64:ff9b::a9fe:a9fe]/',
    'http://localhost./', 'http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.0.0.1/', 'http://0xa9fea9fe/', 'http://127.1/',
  ])('refuses %s with a 400 and stores nothing', async (url) => {
    const r = await h.call('POST', '/api/users/endpoints', body(url), token);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'URL must point to a public address' });
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data).toEqual([]);
  });

  it('refuses an edit that points a public endpoint at a private address', async () => {
    const created = await h.call('POST', '/api/users/endpoints', body('https://example.com/'), token);
    expect(created.status).toBe(201);
    const r = await h.call('PUT', `/api/users/endpoints/${created.body.data.url_id}`, body('http://[::ffff:169.254.169.254]/'), token);
    expect(r.status).toBe(400);
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data[0].url).toBe('https://example.com/');
  });
});
