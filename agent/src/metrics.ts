// Prometheus text exposition on 127.0.0.1 (no client library: a handful of series).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CheckResult } from '@upfleet/proto';
import { LINK_STATES, type LinkState } from './link/reconnect-loop';
import { LAG_BUCKETS_MS, type SchedulerStats } from './scheduler/scheduler';

const KIND_LABEL: Record<string, string> = {
  CHECK_KIND_HTTP: 'http', CHECK_KIND_TLS: 'tls', CHECK_KIND_PING: 'ping',
};

/** Counts of finished checks by kind and outcome, and of failures by phase. */
export class CheckCounters {
  readonly byKindResult = new Map<string, number>();
  readonly failedByKindPhase = new Map<string, number>();
  total = 0;
  failed = 0;

  record(r: CheckResult): void {
    const kind = KIND_LABEL[r.kind] ?? 'unknown';
    const key = `${kind}\u0000${r.ok ? 'ok' : 'failed'}`;
    this.byKindResult.set(key, (this.byKindResult.get(key) ?? 0) + 1);
    this.total++;
    if (!r.ok) {
      this.failed++;
      const fk = `${kind}\u0000${r.phase || 'http'}`;
      this.failedByKindPhase.set(fk, (this.failedByKindPhase.get(fk) ?? 0) + 1);
    }
  }
}

export interface MetricsSnapshot {
  counters: CheckCounters;
  scheduler: SchedulerStats;
  outboxDepth: number;
  outboxDropped: number;
  linkState: LinkState;
  batchesAcked: number;
  resultsAcked: number;
}

export function renderMetrics(m: MetricsSnapshot): string {
  const out: string[] = [];
  const head = (name: string, type: string, help: string): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  };
  head('upfleet_agent_checks_total', 'counter', 'Checks finished, by kind and result.');
  for (const [k, v] of m.counters.byKindResult) {
    const [kind, result] = k.split('\u0000');
    out.push(`upfleet_agent_checks_total{kind="${kind}",result="${result}"} ${v}`);
  }
  head('upfleet_agent_checks_failed_total', 'counter', 'Failed checks, by kind and phase.');
  for (const [k, v] of m.counters.failedByKindPhase) {
    const [kind, phase] = k.split('\u0000');
    out.push(`upfleet_agent_checks_failed_total{kind="${kind}",phase="${phase}"} ${v}`);
  }
  head('upfleet_agent_checks_skipped_overlap_total', 'counter', 'Runs skipped because the previous run of the check was still going.');
  out.push(`upfleet_agent_checks_skipped_overlap_total ${m.scheduler.skippedOverlap}`);
  head('upfleet_agent_checks_in_flight', 'gauge', 'Checks running now.');
  out.push(`upfleet_agent_checks_in_flight ${m.scheduler.running}`);
  head('upfleet_agent_checks_queued', 'gauge', 'Checks due and waiting for a concurrency slot.');
  out.push(`upfleet_agent_checks_queued ${m.scheduler.queued}`);

  const lag = m.scheduler.lag;
  head('upfleet_agent_scheduling_lag_seconds', 'histogram', 'Delay between the planned and the actual start of a check.');
  let cum = 0;
  LAG_BUCKETS_MS.forEach((le, i) => {
    cum += lag.buckets[i];
    out.push(`upfleet_agent_scheduling_lag_seconds_bucket{le="${le / 1000}"} ${cum}`);
  });
  out.push(`upfleet_agent_scheduling_lag_seconds_bucket{le="+Inf"} ${lag.count}`);
  out.push(`upfleet_agent_scheduling_lag_seconds_sum ${lag.sumMs / 1000}`);
  out.push(`upfleet_agent_scheduling_lag_seconds_count ${lag.count}`);

  head('upfleet_agent_assignments', 'gauge', 'Checks assigned to this agent.');
  out.push(`upfleet_agent_assignments ${m.scheduler.assignments}`);
  head('upfleet_agent_outbox_depth', 'gauge', 'Results buffered in the outbox, not yet acked.');
  out.push(`upfleet_agent_outbox_depth ${m.outboxDepth}`);
  head('upfleet_agent_outbox_dropped_total', 'counter', 'Results dropped because the outbox was full.');
  out.push(`upfleet_agent_outbox_dropped_total ${m.outboxDropped}`);
  head('upfleet_agent_results_acked_total', 'counter', 'Results the control plane stored.');
  out.push(`upfleet_agent_results_acked_total ${m.resultsAcked}`);
  head('upfleet_agent_batches_acked_total', 'counter', 'Result batches the control plane stored.');
  out.push(`upfleet_agent_batches_acked_total ${m.batchesAcked}`);
  const mem = process.memoryUsage();
  head('process_resident_memory_bytes', 'gauge', 'Resident memory of the agent process.');
  out.push(`process_resident_memory_bytes ${mem.rss}`);
  head('nodejs_heap_size_total_bytes', 'gauge', 'V8 heap reserved.');
  out.push(`nodejs_heap_size_total_bytes ${mem.heapTotal}`);
  head('nodejs_heap_size_used_bytes', 'gauge', 'V8 heap in use.');
  out.push(`nodejs_heap_size_used_bytes ${mem.heapUsed}`);
  head('upfleet_agent_stream_state', 'gauge', 'Control-plane link state (1 for the current one).');
  for (const s of LINK_STATES) out.push(`upfleet_agent_stream_state{state="${s}"} ${s === m.linkState ? 1 : 0}`);
  return out.join('\n') + '\n';
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(host: string, port: number, snapshot: () => MetricsSnapshot): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(renderMetrics(snapshot()));
    } else {
      res.writeHead(404).end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
