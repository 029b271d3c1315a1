// An endpoint's SLO: its uptime over the SLO window and the error budget the target leaves, from
// the one uptime count (results/queries.ts queryUptimeCounts), so it agrees with the badge and graphs.
import type { SavedEndpoint, SloStatus } from '@upfleet/proto/rest';
import { DEFAULT_SLO_WINDOW_DAYS } from '@upfleet/proto/schemas';
import { AppError } from '../../errors';
import type { MaintenanceSpan } from '../../maintenance';
import { uptimePercent, type UptimeCount, type UptimeGrouping, type UptimeWindow } from '../../results/queries';
import { DAY_MS, MINUTE_MS, measuredMinutes, round2 } from './measure';

const HOUR_MS = 3_600_000;

/** The results store's uptime counts (ResultStore.uptimeCounts). */
export interface UptimeCounts {
  uptimeCounts(endpointIds: number[], window: UptimeWindow, by?: UptimeGrouping): Promise<UptimeCount[]>;
}

export interface ReportDeps {
  /** One endpoint of the workspace (throws not found for another workspace's id). */
  endpoint: (userId: number, urlId: number) => SavedEndpoint;
  results: UptimeCounts | null;
  createdAtMs: (urlIds: number[]) => Map<number, number>;
  /** Maintenance windows of these endpoints overlapping [fromMs, toMs) (any look back). */
  maintenance: (urlIds: number[], fromMs: number, toMs: number) => Promise<MaintenanceSpan[]>;
  now?: () => number;
}

const sum = (counts: UptimeCount[]) => counts.reduce(([n, ok], c) => [n + c.n, ok + c.ok], [0, 0]);

export function createSloService(deps: ReportDeps) {
  const now = deps.now ?? Date.now;
  return {
    async status(userId: number, urlId: number): Promise<SloStatus> {
      const e = deps.endpoint(userId, urlId);
      if (!deps.results) throw new AppError('unavailable', 'Failed to fetch uptime data');
      const results = deps.results;
      const t = now();
      const days = e.slo_window_days ?? DEFAULT_SLO_WINDOW_DAYS;
      const fromMs = t - days * DAY_MS;
      const createdAtMs = deps.createdAtMs([urlId]);
      const created = createdAtMs.get(urlId) ?? 0;
      const spans = await deps.maintenance([urlId], fromMs, t);
      const window = (sinceMs: number) => ({ sinceMs, untilMs: t, createdAtMs, maintenance: spans });
      // Days of the window (the burn-down), and the last 24 h and hour (burn rates) read on their own:
      // a range that starts inside an hour reads that hour's first part from raw rows, exactly.
      const dayStarts = Array.from({ length: days }, (_, i) => fromMs + i * DAY_MS);
      let perDay: UptimeCount[];
      let day: UptimeCount[];
      let hour: UptimeCount[];
      try {
        [perDay, day, hour] = await Promise.all([
          results.uptimeCounts([urlId], window(fromMs), { periodStarts: dayStarts }),
          results.uptimeCounts([urlId], window(t - DAY_MS)),
          results.uptimeCounts([urlId], window(t - HOUR_MS)),
        ]);
      } catch {
        throw new AppError('unavailable', 'Failed to fetch uptime data');
      }
      const [n, ok] = sum(perDay);
      const uptime = uptimePercent(n, ok);
      const target = e.slo_target ?? null;
      const base = {
        url_id: urlId, slo_target: target, slo_window_days: days, from: new Date(fromMs).toISOString(), to: new Date(t).toISOString(), uptime_percentage: uptime,
      };
      if (target === null) return { ...base, error_budget: null, burn_rate_1h: null, burn_rate_24h: null, budget_exhausted_at: null, burn_down: [] };
      const allowedShare = 1 - target / 100;
      const allowed = allowedShare * days * 24 * 60;
      // Each counted check stands for an equal share of the minutes measured (measure.ts).
      const measured = measuredMinutes(fromMs, t, created, spans);
      const perFailure = n > 0 ? measured / n : 0;
      const used = (n - ok) * perFailure;
      const remaining = allowed - used;
      const burn = (c: UptimeCount[]) => {
        const [cn, cok] = sum(c);
        return cn > 0 ? round2((cn - cok) / cn / allowedShare) : null;
      };
      const burn1h = burn(hour);
      const burn24h = burn(day);
      // At the last day's rate the budget shrinks by burn × allowedShare minutes per minute.
      const exhaustedAt = burn24h === null || burn24h <= 0 ? null
        : remaining <= 0 ? t : t + (remaining / (burn24h * allowedShare)) * MINUTE_MS;
      const failedByDay = new Map<number, number>();
      for (const c of perDay) failedByDay.set(c.period, (failedByDay.get(c.period) ?? 0) + c.n - c.ok);
      let failed = 0;
      const burnDown: Array<[number, number]> = [];
      for (let i = 0; i < days; i++) {
        const end = Math.min(fromMs + (i + 1) * DAY_MS, t);
        if (end <= created) continue;
        failed += failedByDay.get(i) ?? 0;
        burnDown.push([end, round2(allowed - failed * perFailure)]);
      }
      return {
        ...base,
        error_budget: { allowed_minutes: round2(allowed), used_minutes: round2(used), remaining_minutes: round2(remaining) },
        burn_rate_1h: burn1h,
        burn_rate_24h: burn24h,
        budget_exhausted_at: exhaustedAt === null ? null : new Date(Math.round(exhaustedAt)).toISOString(),
        burn_down: burnDown,
      };
    },
  };
}
export type SloService = ReturnType<typeof createSloService>;
