// How the endpoint list is searched and sorted: one rule for the server's ?q=/?sort= and the web
// dashboard's own filtering of a list it holds whole. Browser-safe, pure.
import { type Endpoint, type EndpointLive, type EndpointStatus } from './rest';

export const ENDPOINT_SORTS = ['name', 'status', 'uptime', 'last_checked'] as const;
export type EndpointSortKey = (typeof ENDPOINT_SORTS)[number];

/** Sort order by status: maintenance (listed last in ENDPOINT_STATUSES) ranks after the failing ones. */
const STATUS_ORDER: readonly EndpointStatus[] = ['down', 'degraded', 'maintenance', 'pending', 'up', 'paused'];
const STATUS_RANK = Object.fromEntries(STATUS_ORDER.map((s, i) => [s, i])) as Record<EndpointStatus, number>;

/** Name or URL contains the text, case-insensitive (the text already lower-cased). */
export const matchesText = (e: Pick<Endpoint, 'name' | 'url'>, lower: string): boolean =>
  e.name.toLowerCase().includes(lower) || e.url.toLowerCase().includes(lower);

/**
 * name (A→Z), status (down, degraded, maintenance, pending, up, paused), uptime (lowest first), last_checked
 * (longest ago first); desc reverses. Endpoints without an uptime or a check go last either way;
 * ties keep the oldest endpoint first. `liveOf` gives the live fields as of now.
 */
export function sortEndpoints<E extends Endpoint>(rows: E[], key: EndpointSortKey, desc: boolean, liveOf: (e: E) => Pick<EndpointLive, 'status' | 'last_checked_at'> = (e) => e): E[] {
  const keyed = rows.map((e) => {
    let k: string | number | null;
    switch (key) {
      case 'name': k = e.name.toLowerCase(); break;
      case 'status': k = STATUS_RANK[liveOf(e).status]; break;
      case 'uptime': k = e.uptime_percentage; break;
      case 'last_checked': {
        const at = liveOf(e).last_checked_at;
        k = at === null ? null : Date.parse(at);
        break;
      }
    }
    return { e, k };
  });
  const dir = desc ? -1 : 1;
  keyed.sort((a, b) => {
    if (a.k === null || b.k === null) return a.k === b.k ? a.e.url_id - b.e.url_id : a.k === null ? 1 : -1;
    if (a.k !== b.k) return (a.k < b.k ? -1 : 1) * dir;
    return a.e.url_id - b.e.url_id;
  });
  return keyed.map((x) => x.e);
}

/** `-name` → { key: 'name', desc: true }; null when not a sort. */
export function parseSort(raw: string): { key: EndpointSortKey; desc: boolean } | null {
  const key = raw.replace(/^-/, '');
  return (ENDPOINT_SORTS as readonly string[]).includes(key) ? { key: key as EndpointSortKey, desc: raw.startsWith('-') } : null;
}
