// A status page end to end with real processes on loopback: the control plane, an agent,
// a target that goes down, and a real SMTP server. The endpoint goes down → the alerting incident
// opens an auto report, the page turns major_outage (JSON and HTML), and a confirmed subscriber's
// mail arrives; the target comes back → the report resolves and the page is operational again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpReceiver, type SmtpReceiver } from '../../control-plane/src/testing/alert-receivers';
import { createAgentToken, startAgentProcess, type AgentProcess } from '../helpers/agent-process';
import { apiFor, waitFor } from '../helpers/api';
import { startStack, type Stack } from '../helpers/start-stack';

describe('status page end to end', () => {
  let stack: Stack;
  let smtp: SmtpReceiver;
  let agent: AgentProcess;
  let status = 200;
  let target: http.Server;
  const api = apiFor(() => stack);

  beforeAll(async () => {
    target = http.createServer((_req, res) => res.writeHead(status, { connection: 'close' }).end(String(status)));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    smtp = await startSmtpReceiver();
    stack = await startStack({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'status@upfleet.test' } });
    agent = startAgentProcess(stack, { token: await createAgentToken(stack, 'EU-Germany'), region: 'EU-Germany' });
    await waitFor('the agent is live', async () => (await api.admin<Array<{ status: string }>>('GET', '/api/admin/agents')).some((a) => a.status === 'live'));
  });
  afterAll(async () => {
    await agent?.stop();
    await stack?.stop();
    await smtp?.close();
    await new Promise<void>((r) => (target ? target.close(() => r()) : r()));
  });

  it('an endpoint goes down: major_outage with an auto report, and the subscriber is mailed; then it recovers', async () => {
    const token = await api.signup('status-e2e', 'Business'); // 10 s checks
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
    const ep = await api.call('POST', '/api/users/endpoints', { name: 'Checkout', url, regions: ['EU-Germany'], response_code: true }, token);
    expect(ep.status).toBe(201);
    const page = (await api.call('POST', '/api/users/status-pages', {
      slug: 'acme-e2e', title: 'Acme', components: [{ name: 'Checkout', endpoint_id: ep.body.data.url_id }, { name: 'Support', endpoint_id: null }],
    }, token)).body.data;

    // A subscriber confirms through the link in the confirmation mail.
    expect((await api.call('POST', '/api/public/status/acme-e2e/subscribe', { email: 'reader@example.com' })).status).toBe(200);
    const confirmMail = await waitFor('the confirmation mail', async () => smtp.messages.find((m) => m.to.includes('reader@example.com')));
    const link = /https?:\/\/\S+\/confirm\?token=[A-Za-z0-9_-]+/.exec(confirmMail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![0];
    expect((await fetch(link)).status).toBe(200);

    const state = async () => (await api.call('GET', '/api/public/status/acme-e2e')).body.data;
    await waitFor('a first check result', async () => (await state()).components[0].days.at(-1).uptime !== null, 60_000, 1000);
    expect((await state()).overall).toBe('operational');

    status = 503;
    const down = await waitFor('the page turns major_outage', async () => {
      const s = await state();
      return s.overall === 'major_outage' ? s : null;
    }, 90_000, 1000);
    expect(down.components.map((c: any) => c.status)).toEqual(['major_outage', 'operational']);
    expect(down.reports[0]).toMatchObject({ title: 'Checkout is down', status: 'investigating', resolved_at: null });
    expect(down.reports[0].affected).toEqual([{ component_id: page.components[0].component_id, impact: 'major_outage' }]);
    const html = await (await fetch(`${stack.baseUrl}/status/acme-e2e`)).text();
    expect(html).toContain('Major outage');
    expect(html).toContain('Checkout is down');
    const mail = await waitFor('the subscriber is mailed', async () => smtp.messages.find((m) => m.to.includes('reader@example.com') && m.raw.includes('New incident: Checkout is down')), 30_000);
    expect(mail.raw.replace(/\r?\n[ \t]+/g, ' ')).toMatch(/^List-Unsubscribe: </m); // headers may be folded

    status = 200;
    const back = await waitFor('the report resolves', async () => {
      const s = await state();
      return s.overall === 'operational' ? s : null;
    }, 90_000, 1000);
    expect(back.reports[0]).toMatchObject({ title: 'Checkout is down', status: 'resolved' });
    await waitFor('the resolved mail', async () => smtp.messages.find((m) => m.to.includes('reader@example.com') && m.raw.includes('Resolved: Checkout is down')), 30_000);
  });
});
