// Maintenance windows in result-store SQL: results taken while an endpoint's window is
// in progress count neither for nor against its uptime. One place for the window arithmetic, used
// by the status pages' daily bars (status-queries.ts) and the 7-day uptime (queries.ts): hours no
// window touches are read as before (a set lookup leaves the touched ones out); the hours a window
// touches are read per minute and joined with the windows, leaving out the minutes a window touches.
// Per-row work never grows with the number of windows (a window on 1,000 endpoints stays cheap).
import type { MaintenanceSpan } from '../maintenance';

/** endpoint_id and hour packed in one UInt64 (hour index < 2^20 until 2089; ids below 2^33 stay exact in JS). */
const HOUR_KEY = 1_048_576;

/**
 * The windows as bound parameters: {exIds}, {exFrom}, {exTo} (UTC seconds; a partial minute counts
 * as inside) and {exHours:Array(UInt64)}, the (endpoint, hour) pairs a window touches.
 */
export function windowParams(spans: readonly MaintenanceSpan[]): { exIds: number[]; exFrom: number[]; exTo: number[]; exHours: number[] } {
  const exFrom = spans.map((m) => Math.floor(m.startsAt / 1000));
  const exTo = spans.map((m) => Math.ceil(m.endsAt / 1000));
  const hours = new Set<number>();
  spans.forEach((m, i) => {
    for (let h = Math.floor(exFrom[i] / 3600); h * 3600 < exTo[i]; h++) hours.add(m.endpointId * HOUR_KEY + h);
  });
  return { exIds: spans.map((m) => m.endpointId), exFrom, exTo, exHours: [...hours] };
}

/** SQL: the hour `time` (a DateTime expression of the row) lies in is touched by a window of the row's endpoint. */
export const hourTouched = (time: string) => `(endpoint_id * ${HOUR_KEY} + intDiv(toUInt32(${time}), 3600)) IN {exHours:Array(UInt64)}`;

/**
 * SQL: the rows of `source` (columns endpoint_id, s: a minute's start in UTC seconds, n, ok; one
 * row per endpoint and minute, and per `extraKeys` (', region') when given) whose minute no window
 * of their endpoint touches.
 */
export function minutesOutsideWindows(source: string, extraKeys = ''): string {
  return `SELECT endpoint_id, s${extraKeys}, any(n) AS n, any(ok) AS ok FROM (${source}) AS m
      INNER JOIN (SELECT tupleElement(w, 1) AS wid, tupleElement(w, 2) AS f, tupleElement(w, 3) AS t
        FROM (SELECT arrayJoin(arrayZip({exIds:Array(UInt64)}, {exFrom:Array(UInt32)}, {exTo:Array(UInt32)})) AS w)) AS x ON m.endpoint_id = x.wid
      GROUP BY endpoint_id, s${extraKeys} HAVING NOT max(s + 60 > f AND s < t)`;
}
