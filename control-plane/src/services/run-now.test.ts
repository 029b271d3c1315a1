// The Run-now dispatcher: which agent gets a run, how its answer settles the waiting request, and
// the 503 / 504 a request gets when there is no such agent or no answer in time.
import { describe, expect, it } from 'vitest';
import type { Assignment, AssignmentUpdate, CheckResult } from '@upfleet/proto';
import { AppError } from '../errors';
import { createRunNowDispatcher, NO_BROWSER_AGENT } from './run-now';

const check: Assignment = {
  check_id: '', endpoint_id: 0, kind: 'CHECK_KIND_BROWSER', url: 'https://example.com/', interval_seconds: 0, timeout_ms: 50, region: '', retention_days: 0,
};
const result = (ok: boolean): CheckResult => ({
  check_id: '', endpoint_id: 0, kind: 'CHECK_KIND_BROWSER', region: 'EU-Germany', ts_ms: 1, ok, phase: ok ? '' : 'step', error: ok ? '' : 'nope', status_code: 0,
  dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 5, total_ms: 10, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '',
  redirects: 0, retention_days: 0, result_id: 'r',
});

function agent(agentId: string, region: string, browserChecks = true) {
  const sent: AssignmentUpdate[] = [];
  return { agentId, region, browserChecks, sent, send: (u: AssignmentUpdate) => void sent.push(u) };
}

const status = async (p: Promise<unknown>) => p.then(() => 'resolved', (e: unknown) => (e instanceof AppError ? `${e.code}: ${e.message}` : String(e)));

describe('Run now dispatcher', () => {
  it('answers 503 when no connected agent can run browser checks (or none in the region asked)', async () => {
    const d = createRunNowDispatcher();
    d.attach(agent('a', 'EU-Germany', false));
    expect(await status(d.run(check, null))).toBe(`unavailable: ${NO_BROWSER_AGENT}`);
    d.attach(agent('b', 'EU-Germany'));
    expect(await status(d.run(check, 'US-Virginia'))).toBe(`unavailable: ${NO_BROWSER_AGENT}`);
  });

  it('sends the run to a capable agent of the region and resolves with that agent\'s answer only', async () => {
    const d = createRunNowDispatcher();
    const eu = agent('eu', 'EU-Germany');
    const us = agent('us', 'US-Virginia');
    d.attach(eu);
    d.attach(us);
    const running = d.run({ ...check, timeout_ms: 5000 }, 'US-Virginia');
    expect(eu.sent).toHaveLength(0);
    expect(us.sent).toHaveLength(1);
    const req = us.sent[0].run_now!;
    expect(us.sent[0].update).toBe('run_now');
    expect(req.check).toMatchObject({ url: 'https://example.com/', region: 'US-Virginia' });
    // another agent cannot answer for it
    expect(d.settle('eu', req.run_id, result(false))).toBe(false);
    expect(d.settle('us', req.run_id, result(true))).toBe(true);
    expect((await running).ok).toBe(true);
    // an answer after the request was settled is refused
    expect(d.settle('us', req.run_id, result(true))).toBe(false);
  });

  it('answers 504 when the agent does not answer within the timeout and the grace, and forgets a detached agent', async () => {
    const d = createRunNowDispatcher({ graceMs: 20 });
    const a = agent('a', 'EU-Germany');
    const detach = d.attach(a);
    const started = Date.now();
    expect(await status(d.run(check, null))).toMatch(/^timeout: The agent did not answer within/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    expect(d.settle('a', a.sent[0].run_now!.run_id, result(true))).toBe(false);
    detach();
    expect(d.count()).toBe(0);
    expect(await status(d.run(check, null))).toBe(`unavailable: ${NO_BROWSER_AGENT}`);
  });
});
