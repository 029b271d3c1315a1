// The dashboard list's pure rules: the query kept in the URL (q, status, sort), filtering and
// sorting a list held whole (the same rule as the server's), and a `result` event applied to a row.
import { matchesText, parseSort, sortEndpoints } from '@upfleet/proto/endpoint-list';
import { countStatus, emptyStatusCounts, ENDPOINT_STATUSES, type Endpoint, type EndpointStatus, type RecentCheck, type StatusCounts } from '@upfleet/proto/rest';

/** Bars in the heartbeat (the server keeps as many). */
export const RECENT_SHOWN = 30;
/** Down first unless the URL says otherwise. */
export const DEFAULT_SORT = 'status';

export interface ListQuery {
  q: string;
  status: EndpointStatus[];
  sort: string;
}

export function queryFromParams(p: URLSearchParams): ListQuery {
  const status = (p.get('status') ?? '').split(',').filter((s): s is EndpointStatus => (ENDPOINT_STATUSES as readonly string[]).includes(s));
  const sort = p.get('sort') ?? DEFAULT_SORT;
  return { q: p.get('q') ?? '', status, sort: parseSort(sort) ? sort : DEFAULT_SORT };
}

/** The query as the list route's parameters (without paging). */
export function queryString(q: ListQuery): string {
  const p = new URLSearchParams();
  if (q.q.trim()) p.set('q', q.q.trim());
  if (q.status.length) p.set('status', q.status.join(','));
  p.set('sort', q.sort);
  return p.toString();
}

export function filterAndSort(list: Endpoint[], q: ListQuery): Endpoint[] {
  const text = q.q.trim().toLowerCase();
  let rows = text ? list.filter((e) => matchesText(e, text)) : list;
  if (q.status.length) rows = rows.filter((e) => q.status.includes(e.status));
  const sort = parseSort(q.sort)!;
  return sortEndpoints(rows, sort.key, sort.desc);
}

export function countStatuses(list: Endpoint[]): StatusCounts {
  const c = emptyStatusCounts();
  for (const e of list) countStatus(c, e.status);
  return c;
}

/** What a `result` event carries. */
export interface ResultEvent {
  url_id: number;
  status: EndpointStatus;
  last_checked_at: string | null;
  last_response_ms: number | null;
  last_status_code: number | null;
  last_error: string | null;
  recent: RecentCheck;
}

/** The row after a result: its new state and one more bar (a paused endpoint stays paused). */
export function applyResult(e: Endpoint, r: ResultEvent): Endpoint {
  if (e.recent.length > 0 && e.recent[e.recent.length - 1].at >= r.recent.at) return e; // already shown
  return {
    ...e,
    status: e.monitoring_enabled ? r.status : 'paused',
    last_checked_at: r.last_checked_at,
    last_response_ms: r.last_response_ms,
    last_status_code: r.last_status_code,
    last_error: r.last_error,
    recent: [...e.recent, r.recent].slice(-RECENT_SHOWN),
  };
}

/** Rows drawn at first and added by each "Show more" (or fetched per page from the server). */
export const PAGE = 50;
/** Up to this many endpoints the dashboard holds the whole list and filters it itself; past it, the server pages. */
export const WHOLE_LIST_MAX = 2000;

/** Applies results to whichever rows are held; unchanged when none is. */
export function applyResults(list: Endpoint[], results: ResultEvent[]): Endpoint[] {
  const index = new Map<number, number>();
  list.forEach((e, i) => index.set(e.url_id, i));
  let out: Endpoint[] | null = null;
  for (const r of results) {
    const i = index.get(r.url_id);
    if (i === undefined) continue;
    out ??= [...list];
    out[i] = applyResult(out[i], r);
  }
  return out ?? list;
}
