// The SLA report: per endpoint (and region or month), uptime, downtime and outage figures over a
// range, maintenance left out and listed. Uptime comes from the one uptime count
// (results/queries.ts queryUptimeCounts); a period without counted checks is "no data" (null).
import type { MaintenanceWindow, SavedEndpoint, SlaFigures, SlaReport, SlaRow } from '@upfleet/proto/rest';
import type { SlaReportQuery } from '@upfleet/proto/schemas';
import { regionKeyLabel } from '@upfleet/proto/regions';
import { fromZonedLocal, toZonedLocal, zonedDate } from '@upfleet/proto/time-zone';
import { AppError, badRequest, notFound } from '../../errors';
import type { MaintenanceSpan } from '../../maintenance';
import { uptimePercent, type UptimeCount } from '../../results/queries';
import { DAY_MS, MINUTE_MS, downtimeMinutes, measuredMinutes, round2 } from './measure';
import type { ReportDeps } from './slo';

/** An outage incident as the report reads it. */
export interface ReportIncident {
  incident_id: number;
  url_id: number;
  /** Region labels ('EU - Germany'). */
  regions: string[];
  opened_at: number;
  resolved_at: number | null;
  acknowledged_at: number | null;
}

/** The longest range one report covers (the graphs' bound). */
export const REPORT_MAX_RANGE_DAYS = 400;

export interface SlaReportDeps extends Omit<ReportDeps, 'endpoint'> {
  /** The workspace's endpoints. */
  list: (userId: number) => SavedEndpoint[];
  /** The workspace plan's retention: results older than this many days are gone. */
  retentionDays: (userId: number) => number | Promise<number>;
  /** The zone a person's dates and months are cut in (their profile's). */
  timezone: (memberId: number) => string | Promise<string>;
  /** The workspace's outage incidents of these endpoints opened in [fromMs, toMs). */
  incidents: (userId: number, urlIds: number[], fromMs: number, toMs: number) => Promise<ReportIncident[]>;
  /** The maintenance windows of these endpoints touching [fromMs, toMs). */
  windows: (urlIds: number[], fromMs: number, toMs: number) => Promise<MaintenanceWindow[]>;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A query bound: a date is midnight in `zone` (`to`: the midnight after it); a time without an offset is wall-clock time in `zone`. */
function bound(value: string, zone: string, end: boolean): number {
  if (DATE_ONLY.test(value)) {
    const start = fromZonedLocal(`${value}T00:00`, zone);
    if (!end) return start;
    // The next day's midnight, by the calendar (a DST day is 23 or 25 hours long).
    const next = new Date(Date.parse(`${value}T00:00Z`) + DAY_MS).toISOString().slice(0, 10);
    return fromZonedLocal(`${next}T00:00`, zone);
  }
  const ms = /(Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : fromZonedLocal(value.slice(0, 16), zone);
  if (!Number.isFinite(ms)) throw badRequest(`${end ? 'to' : 'from'} is not a valid date or time`);
  return ms;
}

/** The starts of the months [fromMs, toMs) touches, cut at midnight on the 1st in `zone`; the first is fromMs. */
export function monthStarts(fromMs: number, toMs: number, zone: string): number[] {
  const out = [fromMs];
  let [y, m] = toZonedLocal(fromMs, zone).slice(0, 7).split('-').map(Number) as [number, number];
  for (;;) {
    m += 1;
    if (m > 12) { m = 1; y += 1; }
    const start = fromZonedLocal(`${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-01T00:00`, zone);
    if (start >= toMs) return out;
    out.push(start);
  }
}

interface Period { fromMs: number; toMs: number; month: string | null }

function incidentFigures(list: ReportIncident[], untilMs: number): Pick<SlaFigures, 'incidents' | 'longest_outage_minutes' | 'mttr_minutes' | 'mtta_minutes'> {
  const mean = (xs: number[]) => (xs.length > 0 ? round2(xs.reduce((a, b) => a + b, 0) / xs.length / MINUTE_MS) : null);
  const lengths = list.map((i) => (i.resolved_at ?? untilMs) - i.opened_at);
  return {
    incidents: list.length,
    longest_outage_minutes: lengths.length > 0 ? round2(Math.max(...lengths) / MINUTE_MS) : null,
    mttr_minutes: mean(list.filter((i) => i.resolved_at !== null).map((i) => i.resolved_at! - i.opened_at)),
    mtta_minutes: mean(list.filter((i) => i.acknowledged_at !== null).map((i) => i.acknowledged_at! - i.opened_at)),
  };
}

export function createSlaReportService(deps: SlaReportDeps) {
  const now = deps.now ?? Date.now;
  return {
    async report(auth: { userId: number; memberId?: number }, q: SlaReportQuery): Promise<SlaReport> {
      const t = now();
      const zone = await deps.timezone(auth.memberId ?? auth.userId);
      const requestedFrom = bound(q.from, zone, false);
      const to = bound(q.to, zone, true);
      if (!(to > requestedFrom)) throw badRequest('from must be before to');
      if (to - requestedFrom > REPORT_MAX_RANGE_DAYS * DAY_MS) throw badRequest(`The report can cover at most ${REPORT_MAX_RANGE_DAYS} days`);
      // Results older than the plan keeps are gone: the report says where it starts instead of
      // showing that time as "no data".
      const retentionDays = await deps.retentionDays(auth.userId);
      const oldest = t - retentionDays * DAY_MS;
      const clamped = requestedFrom < oldest;
      const from = clamped ? Math.min(oldest, to) : requestedFrom;
      // Figures stop at now: the rest of a range in the future has no data yet.
      const until = Math.max(from, Math.min(to, t));

      let endpoints = deps.list(auth.userId);
      if (q.endpoint_ids) {
        const byId = new Map(endpoints.map((e) => [e.url_id, e]));
        endpoints = q.endpoint_ids.map((id) => {
          const e = byId.get(id);
          if (!e) throw notFound('Endpoint not found');
          return e;
        });
      }
      const ids = endpoints.map((e) => e.url_id);
      const periods: Period[] = q.group_by === 'month'
        ? monthStarts(from, to, zone).map((s, i, all) => ({ fromMs: s, toMs: all[i + 1] ?? to, month: zonedDate(s, zone).slice(0, 7) }))
        : [{ fromMs: from, toMs: to, month: null }];
      const createdAtMs = deps.createdAtMs(ids);
      const spans = ids.length > 0 ? await deps.maintenance(ids, from, until) : [];
      if (!deps.results) throw new AppError('unavailable', 'Failed to fetch uptime data');
      let counts: UptimeCount[] = [];
      if (ids.length > 0 && until > from) {
        try {
          counts = await deps.results.uptimeCounts(ids, { sinceMs: from, untilMs: until - 1, createdAtMs, maintenance: spans }, {
            region: q.group_by === 'region',
            ...(q.group_by === 'month' ? { periodStarts: periods.map((p) => p.fromMs) } : {}),
          });
        } catch {
          throw new AppError('unavailable', 'Failed to fetch uptime data');
        }
      }
      const incidents = ids.length > 0 ? await deps.incidents(auth.userId, ids, from, to) : [];
      const countOf = new Map<string, UptimeCount>();
      for (const c of counts) countOf.set(`${c.endpointId}|${c.region}|${c.period}`, c);
      const spansOf = new Map<number, MaintenanceSpan[]>();
      for (const s of spans) spansOf.set(s.endpointId, [...(spansOf.get(s.endpointId) ?? []), s]);

      const rows: SlaRow[] = [];
      // The totals' downtime per endpoint and period (its regions measure the same minutes once).
      const downtimes: number[] = [];
      for (const e of endpoints) {
        const created = createdAtMs.get(e.url_id) ?? 0;
        const own = incidents.filter((i) => i.url_id === e.url_id);
        const regions = q.group_by === 'region'
          ? [...new Set([...e.regions, ...counts.filter((c) => c.endpointId === e.url_id).map((c) => c.region)])].sort()
          : [''];
        periods.forEach((p, pi) => {
          const minutes = measuredMinutes(p.fromMs, Math.min(p.toMs, until), created, spansOf.get(e.url_id) ?? []);
          let pn = 0;
          let pok = 0;
          for (const region of regions) {
            const c = countOf.get(`${e.url_id}|${region}|${q.group_by === 'month' ? pi : 0}`);
            const n = c?.n ?? 0;
            const ok = c?.ok ?? 0;
            pn += n;
            pok += ok;
            const label = region ? regionKeyLabel(region) : null;
            const inRow = own.filter((i) => i.opened_at >= p.fromMs && i.opened_at < p.toMs && (label === null || i.regions.includes(label)));
            rows.push({
              url_id: e.url_id, name: e.name, region: region || null, month: p.month,
              checks: n, uptime_percentage: uptimePercent(n, ok), downtime_minutes: downtimeMinutes(n, ok, minutes),
              ...incidentFigures(inRow, until),
            });
          }
          const d = downtimeMinutes(pn, pok, minutes);
          if (d !== null) downtimes.push(d);
        });
      }
      const n = counts.reduce((a, c) => a + c.n, 0);
      const ok = counts.reduce((a, c) => a + c.ok, 0);
      const totals: SlaFigures = {
        checks: n,
        uptime_percentage: uptimePercent(n, ok),
        downtime_minutes: downtimes.length > 0 ? round2(downtimes.reduce((a, b) => a + b, 0)) : null,
        ...incidentFigures(incidents, until),
      };
      const idSet = new Set(ids);
      const maintenance = ids.length > 0
        ? (await deps.windows(ids, from, to)).map((w) => ({ id: w.id, title: w.title, endpoint_ids: w.endpoint_ids.filter((id) => idSet.has(id)), starts_at: w.starts_at, ends_at: w.ends_at }))
        : [];
      return {
        from: new Date(from).toISOString(), to: new Date(to).toISOString(), timezone: zone, group_by: q.group_by,
        retention: { days: retentionDays, clamped, requested_from: new Date(requestedFrom).toISOString() },
        rows, totals, maintenance,
      };
    },
  };
}
export type SlaReportService = ReturnType<typeof createSlaReportService>;
