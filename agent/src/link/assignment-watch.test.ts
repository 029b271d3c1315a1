import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { closedPort, startTargets, type Targets } from '../../../tests/helpers/targets';
import { loadAgentConfig } from '../config';
import { startAgent } from '../index';
import { startTestControlPlane, waitFor } from '../testing/test-control-plane';

let targets: Targets;
beforeAll(async () => { targets = await startTargets(); });
afterAll(() => targets.close());

const check = (id: string, url: string, timeoutMs: number): Assignment => ({
  check_id: id, endpoint_id: 7, kind: 'CHECK_KIND_HTTP', url, interval_seconds: 1, timeout_ms: timeoutMs,
  region: 'EU-Germany', retention_days: 30,
});

describe('assignments without a timeout', () => {
  it('are refused where they are received: logged once, counted, never scheduled, and a refused edit stops the check', async () => {
    const cp = await startTestControlPlane({
      assignments: [check('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok, 2000), check('8:CHECK_KIND_HTTP:EU-Germany', targets.http.ok, 0)],
    });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'upfleet-refuse-'));
    const lines: { msg: string; checkId?: string }[] = [];
    const logger = pino({ level: 'warn' }, new Writable({
      write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); },
    }));
    const cfg = loadAgentConfig({}, {
      controlPlane: cp.address, region: 'EU-Germany', token: 'bootstrap-token', dataDir, insecure: true,
      metricsPort: 0, flushIntervalMs: 100, batchSize: 50,
    });
    const agent = await startAgent({ ...cfg, metricsPort: await closedPort() }, logger);
    const refusedLines = (id: string) => lines.filter((l) => l.checkId === id && l.msg.includes('assignment refused'));
    try {
      await waitFor(() => [...cp.stored.values()].filter((r) => r.check_id === '7:CHECK_KIND_HTTP:EU-Germany').length >= 2, 10_000, 'results of the good check');
      expect([...cp.stored.values()].some((r) => r.check_id === '8:CHECK_KIND_HTTP:EU-Germany')).toBe(false);
      expect(agent.stats().assignments).toBe(1);

      // the same refused check again (a fresh snapshot) is not logged or counted a second time
      cp.setAssignments([check('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok, 2000), check('8:CHECK_KIND_HTTP:EU-Germany', targets.http.ok, 0)]);
      // an edit of the running check without a timeout takes it off the schedule
      cp.pushDelta([check('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok, 0)], []);
      await waitFor(() => agent.stats().assignments === 0, 5000, 'the edited check unscheduled');
      expect(refusedLines('8:CHECK_KIND_HTTP:EU-Germany')).toHaveLength(1);
      expect(refusedLines('7:CHECK_KIND_HTTP:EU-Germany')).toHaveLength(1);

      const text = await (await fetch(`http://127.0.0.1:${agent.metricsPort}/metrics`)).text();
      expect(text).toContain('upfleet_agent_assignments_refused_total{reason="no_timeout"} 2');
    } finally {
      await agent.stop();
      await cp.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
