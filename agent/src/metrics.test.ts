import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startTargets, type Targets } from '../../tests/helpers/targets';
import { loadAgentConfig } from './config';
import { startAgent } from './index';
import { waitFor } from './testing/test-control-plane';

let t: Targets;
beforeAll(async () => { t = await startTargets(); });
afterAll(() => t.close());

describe('agent metrics', () => {
  it('serves Prometheus text with checks by kind and result, lag, outbox and stream state', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'upfleet-metrics-'));
    const cfg = loadAgentConfig({}, {
      controlPlane: '127.0.0.1:1', region: 'EU-Germany', dataDir,
      insecure: true, metricsPort: 0,
    });
    const agent = await startAgent({ ...cfg, metricsPort: await closedPort() }, pino({ level: 'silent' }), {
      connect: false,
      extraAssignments: [
        { check_id: 'a', endpoint_id: 1, kind: 'CHECK_KIND_HTTP', url: t.http.ok, interval_seconds: 60, timeout_ms: 1000, region: 'EU-Germany', retention_days: 30 },
        { check_id: 'b', endpoint_id: 2, kind: 'CHECK_KIND_HTTP', url: t.refused, interval_seconds: 60, timeout_ms: 1000, region: 'EU-Germany', retention_days: 30 },
      ],
    });
    try {
      await waitFor(() => agent.stats().checksRun === 2, 5000, 'two checks');
      expect(agent.metricsPort).not.toBeNull();
      const text = await (await fetch(`http://127.0.0.1:${agent.metricsPort}/metrics`)).text();
      expect(text).toContain('upfleet_agent_checks_total{kind="http",result="ok"} 1');
      expect(text).toContain('upfleet_agent_checks_total{kind="http",result="failed"} 1');
      expect(text).toContain('upfleet_agent_checks_failed_total{kind="http",phase="connect"} 1');
      expect(text).toContain('upfleet_agent_scheduling_lag_seconds_count 2');
      expect(text).toContain('upfleet_agent_outbox_depth 2');
      expect(text).toContain('upfleet_agent_assignments 2');
      expect(text).toContain('upfleet_agent_stream_state{state="idle"} 1');
      // every part's series are on the one registry, next to the process figures
      expect(text).toContain('upfleet_agent_scheduling_lag_seconds_bucket{le="+Inf"} 2');
      expect(text).toContain('upfleet_agent_results_acked_total 0');
      expect(text).toContain('upfleet_agent_outbox_dropped_total 0');
      expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    } finally {
      await agent.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
