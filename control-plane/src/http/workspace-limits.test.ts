// What a new workspace does not reset: its creator's email verification (email/SMS test sends and
// deliveries), the test-send allowance (counted per person as well as per workspace), and the number
// of workspaces a person may own (MAX_WORKSPACES_PER_USER). Real HTTP, SQLite and a local SMTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SEND_LIMITED, TEST_SENDS_PER_WINDOW, VERIFY_EMAIL_FIRST } from '../alerting/settings';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let smtp: SmtpReceiver;
let hook: HttpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
  hook = await startHttpReceiver();
  h = await startHarness({ SMTP_URL: smtp.url, SMTP_FROM: 'Upfleet <no-reply@upfleet.test>', MAX_WORKSPACES_PER_USER: '2' });
});
afterAll(async () => {
  await h?.close();
  await hook?.close();
  await smtp?.close();
});

const inWs = (ws: number) => ({ 'x-workspace-id': String(ws) });
const newWorkspace = async (token: string, name = 'Side project') => h.call('POST', '/api/workspaces', { name }, token);
const addMethod = async (token: string, ws: number, platform: string, platform_config: Record<string, string>) =>
  (await h.call('POST', '/api/users/alert-methods', { platform, is_enabled: true, platform_config }, token, inWs(ws))).body.data.alert_method_id as number;
const testSend = (token: string, ws: number, id: number) => h.call('POST', `/api/users/alert-methods/${id}/test`, undefined, token, inWs(ws));

describe('limits a new workspace does not reset', () => {
  it("a workspace inherits its creator's verification: email test sends wait for the creator's address", async () => {
    const s = await h.signup();
    const ws = (await newWorkspace(s.token)).body.data.id as number;
    const method = await addMethod(s.token, ws, 'email', { email_address: `ops-${ws}@example.com` });
    const refused = await testSend(s.token, ws, method);
    expect([refused.status, refused.body]).toEqual([403, { success: false, error: VERIFY_EMAIL_FIRST }]);
    // Once the creator's address is confirmed, the workspace is too.
    h.cp.db.prepare('UPDATE users SET email_verified = 1 WHERE id = ?').run(s.user.id);
    expect((await testSend(s.token, ws, method)).status).toBe(200);
  });

  it('counts test sends per person across their workspaces, not only per workspace', async () => {
    const s = await h.signup();
    const ws = (await newWorkspace(s.token)).body.data.id as number;
    const personal = await addMethod(s.token, s.user.id, 'webhook', { webhook_url: `${hook.url}/personal` });
    const other = await addMethod(s.token, ws, 'webhook', { webhook_url: `${hook.url}/other` });
    for (let i = 0; i < TEST_SENDS_PER_WINDOW; i++) expect((await testSend(s.token, s.user.id, personal)).status).toBe(200);
    const limited = await testSend(s.token, ws, other);
    expect([limited.status, limited.body]).toEqual([429, { success: false, error: TEST_SEND_LIMITED }]);
    // Another person is not held by it.
    const t = await h.signup();
    const theirs = await addMethod(t.token, t.user.id, 'webhook', { webhook_url: `${hook.url}/theirs` });
    expect((await testSend(t.token, t.user.id, theirs)).status).toBe(200);
  });

  it('a person owns at most MAX_WORKSPACES_PER_USER workspaces besides their personal one', async () => {
    const s = await h.signup();
    const first = await newWorkspace(s.token, 'One');
    expect(first.status).toBe(201);
    expect((await newWorkspace(s.token, 'Two')).status).toBe(201);
    const third = await newWorkspace(s.token, 'Three');
    expect([third.status, third.body]).toEqual([403, { success: false, error: 'You can own at most 2 workspaces besides your personal one. Please delete one to create another.' }]);
    expect((await h.call('GET', '/api/workspaces', undefined, s.token)).body.data.map((w: any) => w.name)).toEqual(['Personal', 'One', 'Two']);
    // Deleting one frees its place.
    expect((await h.call('DELETE', `/api/workspaces/${first.body.data.id}`, { password: 'correct horse' }, s.token)).status).toBe(200);
    expect((await newWorkspace(s.token, 'Three')).status).toBe(201);
  });
});
