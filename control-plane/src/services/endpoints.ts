// Endpoints: the plan's rules (features, regions, count; decided in @upfleet/proto/plan) are enforced here, on the server.
// Over 350 lines on purpose: every verb (create, update, toggle, list) goes through the same
// applyPolicy/checkOf and the same cached list JSON; split per verb, those would be passed around.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { allowedFeatures, allowedKinds, planViolations } from '@upfleet/proto/plan';
import { MESSAGES, emptyStatusCounts, type Dashboard, type Endpoint, type EndpointStatus, type Package, type SavedEndpoint, type StatusCounts } from '@upfleet/proto/rest';
import type { EndpointCreateBody, EndpointToggleBody } from '@upfleet/proto/schemas';
import { matchesText, sortEndpoints, type EndpointSortKey } from '@upfleet/proto/endpoint-list';
import { badRequest, conflict, notFound, planRefused } from '../errors';
import { isPrivateAddress, isPrivateHostname } from '@upfleet/proto/targets';
import { endpointCheck } from '@upfleet/proto/schemas';
import { endpointKindSpec } from '@upfleet/proto/check-kinds';
import { LIMITS_BROWSER, stepLabel, type BrowserStep } from '@upfleet/proto/browser-steps';
import { planContext, regionKey, type CatalogRepo } from '../store/catalog-repo';
import type { CheckInput, EndpointsRepo, EndpointWrite } from '../store/endpoints-repo';
import type { UsersRepo } from '../store/users-repo';
import type { ChangeTopic } from '../change-hub';
import type { LiveStateService } from './live-state';
import { cronProblem } from './heartbeats';
import { planLookup } from './plan-of';

const capitalise = (s: string) => s[0].toUpperCase() + s.slice(1);

export interface UptimeSource {
  /** 7-day uptime per endpoint, percentage with two decimals; absent or null when no data. */
  uptime(endpointIds: number[]): Promise<Map<number, number | null>>;
}

/** A rendered GET /users/endpoints-with-uptime body, its entity tag, and its gzip form made once on demand. */
export interface ListBody { body: Buffer; etag: string; gzipped(): Promise<Buffer>; items: Endpoint[] }

const gzip = promisify(zlib.gzip);
/** Bodies smaller than this are sent as they are. */
export const LIST_GZIP_MIN_BYTES = 64 * 1024;

/**
 * Lists of at least this many endpoints are rendered once and served from memory until the
 * user's endpoints change: at 10,000 endpoints a rendering costs ~125 ms, which 16 concurrent
 * readers would queue behind. Past LIST_BODY_TTL_MS (uptime is a 7-day share: one check in 10,080 moves it 0.01 %; cached 10 s
 * already) the next read still gets the last rendering while a fresh one is made for the reads after.
 */
export const LIST_CACHE_MIN_ENDPOINTS = 500;
export const LIST_BODY_TTL_MS = 30_000;
/**
 * Above this many endpoints a page (limit/offset, no search or sort) is read from SQLite with its
 * own uptime (cached per endpoint) instead of cut from the whole list's rendering: at 100,000
 * endpoints a rendering (35 MB of JSON, uptime and creation dates for every endpoint) held the
 * loop for seconds every LIST_BODY_TTL_MS and took hundreds of MB, to serve 100 rows.
 */
export const LIST_PAGE_FROM_RENDERING_MAX = 20_000;
/** How long a large list's order for one search/filter/sort is reused (its rows' live fields are always fresh). */
export const QUERY_ORDER_TTL_MS = 1000;
const LIST_CACHE_USERS = 64;

export function createEndpointService(deps: {
  endpoints: EndpointsRepo;
  users: UsersRepo;
  catalog: CatalogRepo;
  allowPrivateTargets: boolean;
  uptime?: UptimeSource;
  /**
   * The change hub's endpoint topic: `changed` for a create, edit, toggle or delete (its checks are
   * recomputed alone), `removed` when monitoring is turned off or the endpoint deleted (its open
   * incidents resolve without notifying).
   */
  changes?: Pick<ChangeTopic, 'changed' | 'removed'>;
  /** Status, last check and recent checks per endpoint (absent: every endpoint pending or paused). */
  live?: Pick<LiveStateService, 'fields' | 'fieldsJson' | 'statusOf' | 'counts'>;
  /** Heartbeat endpoints' ping tokens: made on save, shown as ping_url to the owner. */
  heartbeats?: { ensure(urlId: number): void; rotate(urlId: number): boolean; resume(urlId: number): void; pingUrl(urlId: number): string | null; state(urlId: number): SavedEndpoint['heartbeat_state'] | null };
  now?: () => number;
}) {
  const { endpoints, catalog } = deps;
  const changed = (urlId: number) => deps.changes?.changed(urlId);

  const planOf = planLookup(deps.users, catalog);

  /**
   * The check an endpoint body asks for, its stored URL (tcp://host:port, dns://name/TYPE
   * for the kinds without one: the uniqueness rule and the lists keep working) and the
   * private-target rule on every kind's host: URL host, tcp host, dns resolver.
   */
  function checkOf(body: EndpointCreateBody, userId: number, urlId: number): { url: string; check: CheckInput } {
    const made = endpointCheck(body);
    const { check } = made;
    let { url } = made;
    if (check.kind === 'heartbeat') {
      // No target: a stored URL of its own (kept across edits) keeps the uniqueness rule and the lists working.
      const before = urlId ? endpoints.get(userId, urlId)?.url : undefined;
      url = before?.startsWith('heartbeat://') ? before : `heartbeat://${crypto.randomUUID()}`;
      const problem = check.cron ? cronProblem(check.cron) : null;
      if (problem) throw badRequest(problem);
    }
    if (!deps.allowPrivateTargets) {
      const target = endpointKindSpec(check.kind).target;
      const pub = target.field === 'target' ? target.publicTarget(check) : null;
      if (pub && ('hostname' in pub ? isPrivateHostname(pub.hostname) : isPrivateAddress(pub.address))) throw badRequest(pub.message);
      if (target.field === 'url' && isPrivateHostname(new URL(url).hostname)) throw badRequest('URL must point to a public address');
    }
    // A secret header sent without a value keeps the stored one (write-only); a new one needs it.
    const kept = check.request && urlId ? endpoints.secretHeaderNames(userId, urlId) : new Set<string>();
    for (const h of check.request?.headers ?? []) {
      if (h.value === undefined && !(h.secret && kept.has(h.name.toLowerCase()))) throw badRequest(`Header ${h.name} needs a value`);
    }
    if (check.steps) browserStepsPolicy(check.steps, urlId ? endpoints.secretFillSelectors(userId, urlId) : new Set());
    return { url, check };
  }

  /** A secret fill without a value keeps the stored one; a goto leaves for public addresses only (as the URL). */
  function browserStepsPolicy(steps: BrowserStep[], keptSecrets: Set<string>): void {
    steps.forEach((s, i) => {
      if (s.action === 'fill' && s.value === undefined && !keptSecrets.has(s.selector ?? '')) throw badRequest(`${capitalise(stepLabel(i, s.action))}: value is required`);
      if (s.action === 'goto' && !deps.allowPrivateTargets && isPrivateHostname(new URL(s.url!).hostname)) {
        throw badRequest(`${capitalise(stepLabel(i, s.action))}: url must point to a public address`);
      }
    });
  }

  /** The plan's rules and the catalogue's regions, applied to a body its schema has already parsed. */
  function applyPolicy(body: EndpointCreateBody, plan: Package, userId: number, urlId = 0): { input: EndpointWrite; check: CheckInput } {
    const interval = body.check_frequency_seconds ?? null;
    const kindRefused = planViolations(plan, { kind: body.kind ?? 'http', ...(interval !== null ? { interval } : {}) })[0];
    if (kindRefused) throw planRefused(kindRefused);
    // A heartbeat is pinged by its job on its own period: it has no interval to choose.
    if (interval !== null && body.kind === 'heartbeat') throw badRequest('A heartbeat has no check interval: it expects pings every period_seconds or on its cron');
    if (body.kind === 'browser') {
      const browser = planViolations(plan, { browserChecks: endpoints.countKind(userId, 'browser', urlId) + 1 })[0];
      if (browser) throw planRefused(browser);
      if (interval !== null && interval < LIMITS_BROWSER.minIntervalSeconds) throw badRequest(MESSAGES.browserIntervalTooShort(LIMITS_BROWSER.minIntervalSeconds));
    }
    const { url, check } = checkOf(body, userId, urlId);
    const feature = planViolations(plan, { features: body })[0];
    if (feature) throw planRefused(feature);
    const primary = catalog.primaryRegion();
    let regions = body.regions;
    for (const r of regions) if (!catalog.regionByKey(r)) throw badRequest(`Unknown region: ${r}`);
    if (regions.length === 0 && primary) regions = [regionKey(primary)];
    const region = planViolations(plan, { regions }, planContext(catalog))[0];
    if (region) throw planRefused(region);
    const { name, description, ping_host, cert_expiry, response_code, response_time } = body;
    checkLinks(userId, body, urlId);
    const slo = {
      ...(body.slo_target !== undefined ? { slo_target: body.slo_target } : {}),
      ...(body.slo_window_days !== undefined ? { slo_window_days: body.slo_window_days } : {}),
    };
    return {
      input: {
        name, url, description, ping_host, cert_expiry, response_code, response_time, regions, check_frequency_seconds: interval,
        escalation_policy_id: body.escalation_policy_id, depends_on: body.depends_on, ...slo,
      },
      check,
    };
  }

  /** The policy and the parent an endpoint names are the workspace's own; a dependency never loops back. */
  function checkLinks(userId: number, body: EndpointCreateBody, urlId: number): void {
    if (typeof body.escalation_policy_id === 'number' && !endpoints.policyExists(userId, body.escalation_policy_id)) {
      throw badRequest('escalation_policy_id must be the id of one of your escalation policies, or null');
    }
    const parent = body.depends_on;
    if (typeof parent !== 'number') return;
    if (parent === urlId) throw badRequest('An endpoint cannot depend on itself');
    if (endpoints.dependsOn(userId, parent) === undefined) throw badRequest('depends_on must be the url_id of another of your endpoints, or null');
    // Walk up from the parent: reaching this endpoint would make a cycle.
    const seen = new Set<number>([parent]);
    for (let at: number | null | undefined = endpoints.dependsOn(userId, parent); typeof at === 'number'; at = endpoints.dependsOn(userId, at)) {
      if (at === urlId) throw badRequest('depends_on would make a cycle: that endpoint depends on this one');
      if (seen.has(at)) break;
      seen.add(at);
    }
  }

  /**
   * A heartbeat's answer carries its ping URL (those who may edit it see it again at any time). The
   * URL records results, a write credential: `showPingUrl` false (a viewer) leaves it out.
   */
  function withPingUrl(e: SavedEndpoint, showPingUrl = true): SavedEndpoint {
    if (e.kind !== 'heartbeat') return e;
    const pingUrl = deps.heartbeats?.pingUrl(e.url_id);
    const state = deps.heartbeats?.state(e.url_id);
    return pingUrl ? { ...e, ...(showPingUrl ? { ping_url: pingUrl } : {}), ...(state ? { heartbeat_state: state } : {}) } : e;
  }

  async function withUptime(list: SavedEndpoint[]): Promise<Endpoint[]> {
    let map = new Map<number, number | null>();
    if (deps.uptime && list.length > 0) {
      try {
        map = await deps.uptime.uptime(list.map((e) => e.url_id));
      } catch {
        map = new Map(); // results store away: the list still answers, uptime unknown
      }
    }
    return list.map((e) => ({ ...e, uptime_percentage: map.get(e.url_id) ?? null, ...liveFields(e) }));
  }

  const liveFields = (e: SavedEndpoint) => deps.live?.fields(e.url_id, e.monitoring_enabled) ?? NO_LIVE(e.monitoring_enabled);
  const statusOf = (e: SavedEndpoint): EndpointStatus => deps.live?.statusOf(e.url_id, e.monitoring_enabled) ?? (e.monitoring_enabled ? 'pending' : 'paused');
  /**
   * An item of a cached rendering with its live fields as of now, as JSON, from two strings made once each: the item's stored fields (per rendering)
   * and its live fields (per change of its state). A page of 100 with 30 checks each is ~200 kB;
   * stringifying it on every request cost most of the request.
   */
  const staticJson = new WeakMap<Endpoint, string>();
  function freshJson(e: Endpoint): string {
    if (!deps.live) return JSON.stringify(e);
    let head = staticJson.get(e);
    if (head === undefined) {
      const { status: _s, last_checked_at: _c, last_response_ms: _m, last_status_code: _k, last_error: _e, recent: _r, ...stored } = e;
      head = JSON.stringify(stored).slice(0, -1);
      staticJson.set(e, head);
    }
    return `${head},${deps.live.fieldsJson(e.url_id, e.monitoring_enabled)}}`;
  }

  const now = deps.now ?? Date.now;
  const rendered = new Map<number, { version: number; count: number; at: number; body: Promise<ListBody> }>();

  // Active/total counts per user, valid while the user's endpoints are unchanged (the dashboard
  // is read on every page load; counting active endpoints scans the user's rows).
  const counted = new Map<number, { version: number; total: number; active: number }>();
  function counts(userId: number): { active_monitoring: number; total_endpoints: number } {
    const version = endpoints.version(userId);
    const total = endpoints.count(userId);
    let c = counted.get(userId);
    if (!c || c.version !== version || c.total !== total) {
      if (counted.size >= 10_000) counted.clear();
      c = { version, total, active: endpoints.countActive(userId) };
      counted.set(userId, c);
    }
    return { active_monitoring: c.active, total_endpoints: c.total };
  }

  async function render(list: SavedEndpoint[]): Promise<ListBody> {
    const items = await withUptime(list);
    const body = Buffer.from(`{"success":true,"data":${JSON.stringify(items)}}`);
    let zipped: Promise<Buffer> | null = null;
    return {
      body,
      items,
      etag: `W/"${crypto.createHash('sha1').update(body).digest('base64url')}"`,
      // Level 1: a 10,000-endpoint list (3.3 MB) shrinks ~10× in ~20 ms, once per rendering.
      gzipped: () => (zipped ??= gzip(body, { level: 1 })),
    };
  }

  /** The whole `{ success, data }` body of the list; large lists are rendered once per change or TTL. */
  function listBody(userId: number): Promise<ListBody> {
    const version = endpoints.version(userId);
    // The count guards against a user id reused after a deletion (the version is per process).
    const count = endpoints.count(userId);
    const hit = rendered.get(userId);
    const same = hit && hit.version === version && hit.count === count;
    if (same && now() - hit.at < LIST_BODY_TTL_MS) return hit.body;
    const list = endpoints.list(userId);
    const fresh = render(list);
    if (list.length >= LIST_CACHE_MIN_ENDPOINTS) {
      const at = now();
      if (same) {
        // Unchanged endpoints, older uptime: serve the last rendering while this one is made.
        hit.at = at;
        void fresh.then((b) => {
          const cur = rendered.get(userId);
          if (cur && cur.version === version && cur.count === count) cur.body = Promise.resolve(b);
        }, () => undefined);
        return hit.body;
      }
      rendered.delete(userId);
      if (rendered.size >= LIST_CACHE_USERS) rendered.delete(rendered.keys().next().value!);
      rendered.set(userId, { version, count, at, body: fresh });
      fresh.catch(() => rendered.delete(userId));
    } else if (hit) {
      rendered.delete(userId);
    }
    return fresh;
  }

  /**
   * The user's endpoints matching a query, in its order. At 10,000 endpoints a sort costs a few
   * ms, so the order is kept for QUERY_ORDER_TTL_MS per (user, query) while the endpoints are
   * unchanged: a page's rows always carry their live fields as of now, their order is at most
   * that old.
   */
  const orders = new Map<string, { at: number; rows: Endpoint[] }>();
  async function matching(userId: number, o: ListQuery): Promise<Endpoint[]> {
    const count = endpoints.count(userId);
    const key = `${userId}|${endpoints.version(userId)}|${count}|${o.q ?? ''}|${o.status?.join(',') ?? ''}|${o.sort ? `${o.sort.desc ? '-' : ''}${o.sort.key}` : ''}`;
    const hit = orders.get(key);
    if (hit && now() - hit.at < QUERY_ORDER_TTL_MS) return hit.rows;
    let rows = count >= LIST_CACHE_MIN_ENDPOINTS ? (await listBody(userId)).items : await withUptime(endpoints.list(userId));
    if (o.q) {
      const needle = o.q.toLowerCase();
      rows = rows.filter((e) => matchesText(e, needle));
    }
    if (o.status && o.status.length > 0) {
      const wanted = new Set(o.status);
      rows = rows.filter((e) => wanted.has(statusOf(e)));
    }
    if (o.sort) rows = sortEndpoints(rows, o.sort.key, o.sort.desc, liveFields);
    if (count >= LIST_CACHE_MIN_ENDPOINTS) {
      if (orders.size >= 256) orders.clear();
      orders.set(key, { at: now(), rows });
    }
    return rows;
  }

  return {
    planOf,
    list: (userId: number) => withUptime(endpoints.list(userId)),


    /**
     * One page of the list as the answer's JSON body, and the total. A large list's page is cut from its cached rendering
     * (a page of 100 from 10,000 would otherwise ask the results store for uptime on every read);
     * a small one's queries uptime for the page's endpoints only.
     */
    async pageBody(userId: number, limit: number, offset: number): Promise<{ body: string; total: number }> {
      const total = endpoints.count(userId);
      if (total >= LIST_CACHE_MIN_ENDPOINTS && total <= LIST_PAGE_FROM_RENDERING_MAX) {
        const items = (await listBody(userId)).items.slice(offset, offset + limit);
        return { body: `{"success":true,"data":[${items.map(freshJson).join(',')}]}`, total };
      }
      return { body: JSON.stringify({ success: true, data: await withUptime(endpoints.page(userId, limit, offset)) }), total };
    },

    listBody,

    /**
     * Search (name or URL contains q), status filter and sort over the user's whole list, then one
     * page, as the answer's JSON body (`{"success":true,"data":[…]}`, assembled from cached
     * strings). The list itself comes from the cached rendering when large; status and the live
     * fields are read now, so a page is never staler than the last stored result.
     */
    async queryBody(userId: number, o: ListQuery): Promise<{ body: string; total: number }> {
      const rows = await matching(userId, o);
      const page = rows.slice(o.offset, o.offset + o.limit);
      return { body: `{"success":true,"data":[${page.map(freshJson).join(',')}]}`, total: rows.length };
    },

    get(userId: number, urlId: number, opts: { showPingUrl: boolean } = { showPingUrl: true }) {
      const e = endpoints.get(userId, urlId);
      if (!e) throw notFound('Endpoint not found');
      return withPingUrl(e, opts.showPingUrl);
    },

    /** A heartbeat's new ping URL; the old one stops working at once. */
    rotatePingUrl(userId: number, urlId: number) {
      const e = endpoints.get(userId, urlId);
      if (!e) throw notFound('Endpoint not found');
      if (e.kind !== 'heartbeat' || !deps.heartbeats?.rotate(urlId)) throw badRequest('Only a heartbeat endpoint has a ping URL');
      return withPingUrl(endpoints.get(userId, urlId)!);
    },

    async create(userId: number, body: EndpointCreateBody) {
      const plan = await planOf(userId);
      const { input, check } = applyPolicy(body, plan, userId);
      const refused = planViolations(plan, { endpoints: endpoints.count(userId) + 1 })[0];
      if (refused) throw planRefused(refused);
      if (endpoints.checkTaken(userId, input.url, check)) throw conflict('You are already monitoring this URL');
      const id = endpoints.insert(userId, crypto.randomUUID(), input, check);
      if (check.kind === 'heartbeat') deps.heartbeats?.ensure(id);
      changed(id);
      return withPingUrl(endpoints.get(userId, id)!);
    },

    /** A dry run of create (no urlId) or update: every check a save makes but the account's endpoint
     *  count (a file applied as a whole may delete first), and nothing written. */
    async check(userId: number, body: EndpointCreateBody, urlId?: number): Promise<EndpointWrite> {
      if (urlId !== undefined && !endpoints.get(userId, urlId)) throw notFound('Endpoint not found');
      const { input, check } = applyPolicy(body, await planOf(userId), userId, urlId);
      if (endpoints.checkTaken(userId, input.url, check, urlId)) throw conflict('You are already monitoring this URL');
      return input;
    },

    async update(userId: number, urlId: number, body: EndpointCreateBody) {
      if (!endpoints.get(userId, urlId)) throw notFound('Endpoint not found');
      const { input, check } = applyPolicy(body, await planOf(userId), userId, urlId);
      if (endpoints.checkTaken(userId, input.url, check, urlId)) throw conflict('You are already monitoring this URL');
      endpoints.update(userId, urlId, input, check);
      if (check.kind === 'heartbeat') deps.heartbeats?.ensure(urlId);
      changed(urlId);
      return withPingUrl(endpoints.get(userId, urlId)!);
    },

    async toggle(userId: number, urlId: number, body: EndpointToggleBody) {
      const e = endpoints.get(userId, urlId);
      if (!e) throw notFound('Endpoint not found');
      const next = body.monitoring_enabled ?? !e.monitoring_enabled;
      // After a downgrade switched some off, switching them back on stays within the plan.
      if (next && !e.monitoring_enabled) {
        const plan = await planOf(userId);
        const refused = planViolations(plan, { endpoints: endpoints.countActive(userId) + 1 })[0];
        if (refused) throw planRefused(refused);
      }
      endpoints.toggle(userId, urlId, next);
      // A heartbeat switched back on waits for its next ping (new): a miss while paused is no alert.
      if (next && !e.monitoring_enabled && e.kind === 'heartbeat') deps.heartbeats?.resume(urlId);
      if (!next) deps.changes?.removed(urlId);
      changed(urlId);
      return { url_id: urlId, monitoring_enabled: next };
    },

    remove(userId: number, urlId: number) {
      if (!endpoints.delete(userId, urlId)) throw notFound('Endpoint not found');
      deps.changes?.removed(urlId);
      changed(urlId);
      return { url_id: urlId };
    },

    async dashboard(userId: number): Promise<Dashboard> {
      const plan = await planOf(userId);
      return {
        ...counts(userId),
        regions_count: catalog.listRegions().length,
        package_name: plan.package_name,
        max_regions: plan.max_regions,
        max_endpoints: plan.max_endpoints,
        multi_region: plan.multi_region,
        ...allowedFeatures(plan),
        status_counts: deps.live?.counts(userId) ?? statusCountsWithoutLive(endpoints.countActive(userId), endpoints.count(userId)),
        monitor_kinds: allowedKinds(plan),
        check_frequency_seconds: plan.check_frequency_seconds,
      };
    },
  };
}
export type EndpointService = ReturnType<typeof createEndpointService>;

export interface ListQuery {
  q?: string;
  status?: EndpointStatus[];
  sort?: { key: EndpointSortKey; desc: boolean };
  limit: number;
  offset: number;
}

const NO_LIVE = (enabled: boolean) => ({
  status: (enabled ? 'pending' : 'paused') as EndpointStatus, last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
});

function statusCountsWithoutLive(active: number, total: number): StatusCounts {
  const counts = emptyStatusCounts();
  counts.pending = active;
  counts.paused = total - active;
  return counts;
}
