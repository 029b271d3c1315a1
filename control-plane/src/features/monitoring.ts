// Monitoring: heartbeat monitors, the endpoint service with its 7-day uptime, and graphs.
import { UPTIME_WINDOW_MS } from '../checks';
import type { Alerting } from '../alerting';
import type { MaintenanceService } from '../maintenance';
import type { ResultStore } from '../results/clickhouse-store';
import { createEndpointService, type UptimeSource } from '../services/endpoints';
import { createGraphService } from '../services/graphs';
import { createHeartbeats } from '../services/heartbeats';
import type { LiveStateService } from '../services/live-state';
import { cachedUptime } from '../services/uptime-cache';
import type { Foundation } from './foundation';
import { whileLeader, type Feature } from './lifecycle';
import type { AlertService } from '../alerting/settings';
import { endpointRoutes } from '../http/routes/endpoints';
import { graphRoutes } from '../http/routes/graphs';
import { heartbeatPingRoutes } from '../http/routes/heartbeats';

export function createMonitoringFeature(
  base: Foundation,
  deps: { results: ResultStore | null; maintenance: MaintenanceService; live: LiveStateService; alerting: Alerting; alerts: AlertService },
  opts: { heartbeatTickMs?: number },
) {
  const { results, maintenance, live, alerting } = deps;
  const { endpointsRepo } = base;
  const uptime: UptimeSource | undefined = results
    ? cachedUptime({
        uptime: (ids) => {
          const now = Date.now();
          const sinceMs = now - UPTIME_WINDOW_MS;
          // Maintenance windows leave their results out; only endpoints with one pay for it.
          return results.uptime(ids, { sinceMs, untilMs: now, createdAtMs: endpointsRepo.createdAtMs(ids), maintenance: maintenance.spansFor(ids, sinceMs, now) });
        },
      }, undefined, undefined, () => maintenance.version())
    : undefined;
  // Heartbeat monitors: pings are results (region push) and their misses open incidents.
  const heartbeats = createHeartbeats({
    db: base.db, box: base.box, logger: base.logger, now: base.now,
    publicUrl: base.publicUrl,
    storeResults: results ? (batchId, rows) => results.insertBatch(batchId, 'push', rows) : undefined,
    onResults: (rows) => live.onResults(rows),
    retentionDays: (urlId) => endpointsRepo.monitoredById(urlId)?.retention_days,
    setDown: (urlId, down, cause, t) => alerting.heartbeat(urlId, down, cause, t),
  });
  const endpoints = createEndpointService({
    endpoints: endpointsRepo, users: base.users, catalog: base.catalog, allowPrivateTargets: base.config.allowPrivateTargets, uptime, live,
    changes: base.changes.endpoints, heartbeats,
  });
  const graphs = createGraphService({
    endpoints, source: results, metrics: base.metrics,
    // The same count as the badge (uptime above) over the graph's range, so the two never disagree.
    uptime: results
      ? async (id, fromMs, toMs) => (await results.uptime([id], {
        sinceMs: fromMs, untilMs: toMs, createdAtMs: endpointsRepo.createdAtMs([id]), maintenance: maintenance.spansFor([id], fromMs, toMs),
      })).get(id) ?? null
      : undefined,
  });
  let stopHeartbeats: (() => void) | null = null;
  return {
    name: 'monitoring',
    services: { heartbeats, endpoints, graphs },
    routes: () => ({
      outside: [heartbeatPingRoutes(heartbeats)],
      workspace: [...endpointRoutes({ endpoints, alerts: deps.alerts, limiter: base.limiter, heartbeats }), ...graphRoutes(graphs)],
    }),
    // Deadlines are checked now (a ping missed while the control plane was away) and every few seconds.
    // On the lease holder only: two processes checking deadlines would both mark a heartbeat down.
    ...whileLeader(base.leadership, {
      start: () => {
        stopHeartbeats = heartbeats.start(opts.heartbeatTickMs);
      },
      stop: () => stopHeartbeats?.(),
    }),
  } satisfies Feature<unknown>;
}
