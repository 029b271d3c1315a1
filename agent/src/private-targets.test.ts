// The control plane's target policy reaches the agent in each assignment and wins over the
// agent's own --allow-private-targets (the stricter of the two), in-process and on probe threads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { startTargets, type Targets } from '../../tests/helpers/targets';
import { loadAgentConfig } from './config';
import { startAgent } from './index';
import { startTestControlPlane, waitFor } from './testing/test-control-plane';

let targets: Targets;
beforeAll(async () => { targets = await startTargets(); });
afterAll(() => targets.close());

const check = (endpointId: number, denied: boolean): Assignment => ({
  check_id: `${endpointId}:http:EU-Germany`, endpoint_id: endpointId, kind: 'CHECK_KIND_HTTP', url: targets.http.ok,
  interval_seconds: 1, timeout_ms: 2000, region: 'EU-Germany', retention_days: 30, private_targets_denied: denied,
});

describe.each([0, 1])('private targets with probe threads = %i', (probeThreads) => {
  it('refuses a private target the control plane denies even though the agent allows private targets, and says why', async () => {
    const cp = await startTestControlPlane({ assignments: [check(1, true), check(2, false)] });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'upfleet-policy-'));
    const cfg = loadAgentConfig({}, {
      controlPlane: cp.address, region: 'EU-Germany', token: 'bootstrap-token', dataDir, insecure: true,
      metricsPort: 0, flushIntervalMs: 100, batchSize: 50, allowPrivateTargets: 'true', probeThreads,
    });
    expect(cfg.allowPrivateTargets).toBe(true);
    const agent = await startAgent(cfg, pino({ level: 'silent' }));
    const of = (id: number) => [...cp.stored.values()].filter((r) => r.endpoint_id === id);
    try {
      await waitFor(() => of(1).length >= 2 && of(2).length >= 2, 15_000, 'results of both checks');
      for (const r of of(1)) {
        expect(r).toMatchObject({
          ok: false, phase: 'connect', status_code: 0,
          error: expect.stringMatching(/^target address not allowed: 127\.0\.0\.1 is a private, loopback or link-local address/),
        });
      }
      for (const r of of(2)) expect(r).toMatchObject({ ok: true, status_code: 200 });
    } finally {
      await agent.stop();
      await cp.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
