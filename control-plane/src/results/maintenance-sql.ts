// Maintenance windows in result-store SQL (issue 21): results taken while an endpoint's window is
// in progress count neither for nor against its uptime. One place for the window arithmetic, used
// by the status pages' daily bars (status-queries.ts) and the 7-day uptime (queries.ts): whole
// buckets outside every window come from the coarser rollup, a bucket a window touches from the
// finer one, leaving out the minutes the window touches.
import type { MaintenanceSpan } from '../services/status-pages';

/** The windows as bound parameters: {exIds:Array(UInt64)}, {exFrom:Array(UInt32)}, {exTo:Array(UInt32)} (seconds; a partial minute counts as inside). */
export function windowParams(spans: readonly MaintenanceSpan[]): { exIds: number[]; exFrom: number[]; exTo: number[] } {
  return {
    exIds: spans.map((m) => m.endpointId),
    exFrom: spans.map((m) => Math.floor(m.startsAt / 1000)),
    exTo: spans.map((m) => Math.ceil(m.endsAt / 1000)),
  };
}

/** SQL: the span [start, start + len) (start in UTC seconds, an expression over the row) overlaps a window of the row's endpoint. */
export function overlapsWindow(start: string, len: number): string {
  return `arrayExists((i, f, t) -> i = endpoint_id AND ${start} + ${len} > f AND ${start} < t, {exIds:Array(UInt64)}, {exFrom:Array(UInt32)}, {exTo:Array(UInt32)})`;
}

/** SQL for a rollup row: its bucket of `len` seconds overlaps a window. */
export const bucketInWindow = (len: number) => overlapsWindow('toUInt32(bucket)', len);

/** SQL for a minute-rollup row: the hour its bucket lies in overlaps a window (that hour is read from minutes). */
export const hourInWindow = overlapsWindow('toUInt32(toStartOfHour(bucket))', 3600);
