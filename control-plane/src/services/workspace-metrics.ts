// A workspace's endpoints as Prometheus metrics (GET /api/users/metrics): the last check per
// endpoint, kind and region, the certificate's end, uptime over 24 h / 7 d / 30 d (the badge's
// rule: maintenance left out) and open incidents. A registry per request (never the process's
// own, which carries the control plane's metrics), filled from one query per metric family.
import { Gauge, Registry } from 'prom-client';
import type { Incident, SavedEndpoint } from '@upfleet/proto/rest';
import { AppError } from '../errors';
import type { LastCheck, UptimeWindow } from '../results/clickhouse-store';
import type { MaintenanceSpan } from '../maintenance';

export interface MetricsSource {
  lastChecks(endpointIds: number[], sinceMs: number): Promise<LastCheck[]>;
  uptime(endpointIds: number[], window: UptimeWindow): Promise<Map<number, number | null>>;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const UPTIME_WINDOWS = { '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY } as const;
/** Last values come from checks this recent (an endpoint checked daily still shows). */
const LAST_CHECK_WINDOW_MS = 25 * HOUR;

export function createWorkspaceMetrics(deps: {
  endpoints: { list(userId: number): SavedEndpoint[]; createdAtMs(urlIds: number[]): Map<number, number> };
  source: MetricsSource | null;
  maintenance: { spansFor(urlIds: readonly number[], fromMs: number, untilMs: number): MaintenanceSpan[] };
  /** Open incidents of the workspace (alerting); null without alerting. */
  openIncidents: ((userId: number) => Incident[]) | null;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  return {
    async render(userId: number): Promise<{ contentType: string; text: string }> {
      if (!deps.source) throw new AppError('unavailable', 'Results are not available');
      const source = deps.source;
      const at = now();
      const endpoints = deps.endpoints.list(userId);
      const ids = endpoints.map((e) => e.url_id);
      const byId = new Map(endpoints.map((e) => [e.url_id, e]));
      const createdAtMs = deps.endpoints.createdAtMs(ids);
      const [last, ...uptimes] = await Promise.all([
        source.lastChecks(ids, at - LAST_CHECK_WINDOW_MS),
        ...Object.values(UPTIME_WINDOWS).map((ms) => source.uptime(ids, {
          sinceMs: at - ms, untilMs: at, createdAtMs, maintenance: deps.maintenance.spansFor(ids, at - ms, at),
        })),
      ]);

      const registry = new Registry();
      const checkLabels = ['endpoint', 'url_id', 'region', 'kind'] as const;
      const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Gauge({ name, help, labelNames, registers: [registry] });
      const up = gauge('upfleet_check_up', 'Whether the last check passed (1) or failed (0), per endpoint, check kind and region', checkLabels);
      const response = gauge('upfleet_check_response_seconds', 'Response time of the last check that got an answer, in seconds', checkLabels);
      const status = gauge('upfleet_check_status_code', 'HTTP status code of the last check (0: no response)', checkLabels);
      const cert = gauge('upfleet_certificate_expiry_timestamp_seconds', 'When the certificate seen by the last TLS check expires (Unix time)', checkLabels);
      const endpointLabels = ['endpoint', 'url_id', 'kind'] as const;
      const uptime = gauge('upfleet_endpoint_uptime_ratio', 'Share of passed checks over the window (maintenance left out); absent without checks', [...endpointLabels, 'window'] as const);
      const open = gauge('upfleet_incident_open', 'Open alerting incidents of the endpoint', endpointLabels);

      for (const c of last) {
        const e = byId.get(c.endpointId);
        if (!e) continue;
        const labels = { endpoint: e.name, url_id: String(e.url_id), region: c.region, kind: c.kind };
        up.set(labels, c.up ? 1 : 0);
        if (c.responseSeconds !== null) response.set(labels, c.responseSeconds);
        if (c.kind === 'http') status.set(labels, c.statusCode);
        if (c.certNotAfterMs !== null) cert.set(labels, c.certNotAfterMs / 1000);
      }
      const openCount = new Map<number, number>();
      for (const i of deps.openIncidents?.(userId) ?? []) openCount.set(i.url_id, (openCount.get(i.url_id) ?? 0) + 1);
      const windows = Object.keys(UPTIME_WINDOWS);
      for (const e of endpoints) {
        const labels = { endpoint: e.name, url_id: String(e.url_id), kind: e.kind ?? 'http' };
        windows.forEach((window, i) => {
          const pct = uptimes[i].get(e.url_id);
          if (pct !== null && pct !== undefined) uptime.set({ ...labels, window }, pct / 100);
        });
        if (deps.openIncidents) open.set(labels, openCount.get(e.url_id) ?? 0);
      }
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}
export type WorkspaceMetrics = ReturnType<typeof createWorkspaceMetrics>;
