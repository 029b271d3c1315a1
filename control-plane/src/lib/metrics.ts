// Prometheus metrics by prom-client. server.ts creates one Registry per control plane and passes it
// to each part, which registers what it measures: the graph service (results-store query time), ReportResults
// (ingest), the agent service (live agents, outboxes), the assignment engine (checks owned) and,
// here, the REST middleware's request metrics, which createApp() reports through observeRequest().
import { Counter, Summary, type Registry } from 'prom-client';

export interface HttpMetrics {
  /** The registry's text exposition for GET /metrics. */
  render(): Promise<string>;
  observeRequest(method: string, status: number, seconds: number): void;
}

export function registerHttpMetrics(registry: Registry): HttpMetrics {
  const requests = new Counter({
    name: 'upfleet_http_requests_total',
    help: 'REST requests by method and status class',
    labelNames: ['method', 'status'],
    registers: [registry],
  });
  const seconds = new Summary({
    name: 'upfleet_http_request_duration_seconds',
    help: 'REST request time',
    labelNames: ['method'],
    percentiles: [],
    registers: [registry],
  });
  return {
    render: () => registry.metrics(),
    observeRequest(method, status, s) {
      requests.inc({ method, status: `${Math.floor(status / 100)}xx` });
      seconds.observe({ method }, s);
    },
  };
}
