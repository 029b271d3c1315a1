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

describe('a snapshot sent in chunks', () => {
  const list = (n: number, from = 0) => Array.from({ length: n }, (_, i) =>
    ({ ...check(`${from + i}:CHECK_KIND_HTTP:EU-Germany`, targets.http.ok, 2000), endpoint_id: from + i, interval_seconds: 60 }));

  it('is applied whole: a stream cut after the first chunk leaves the previous checks running, and the next connect brings all of the new ones', async () => {
    const cp = await startTestControlPlane({ assignments: list(250), snapshotChunk: 100 });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'upfleet-chunks-'));
    const cfg = loadAgentConfig({}, {
      controlPlane: cp.address, region: 'EU-Germany', token: 'bootstrap-token', dataDir, insecure: true, metricsPort: 0, flushIntervalMs: 100,
    });
    const agent = await startAgent({ ...cfg, metricsPort: await closedPort() }, pino({ level: 'silent' }));
    try {
      // 250 checks in chunks of 100: all of them, once
      await waitFor(() => agent.stats().assignments === 250, 15_000, 'the first snapshot, in three chunks');
      expect(cp.watchRequests[0].accepts_snapshot_chunks).toBe(true);

      // a new snapshot of 300 checks is cut after its first chunk of 100; the agent reconnects and hears nothing yet
      cp.quietWatch = true;
      cp.breakAfterChunks = 1;
      cp.setAssignments(list(300, 1000));
      await waitFor(() => cp.watchRequests.length === 2, 20_000, 'the agent reconnecting');
      expect(agent.stats().assignments).toBe(250); // not the 100 of the cut snapshot's first chunk

      cp.quietWatch = false;
      cp.setAssignments(list(300, 1000));
      await waitFor(() => agent.stats().assignments === 300, 15_000, 'the whole new snapshot');
    } finally {
      await agent.stop();
      await cp.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
