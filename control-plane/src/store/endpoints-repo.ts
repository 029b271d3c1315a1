import type { EndpointCheck, EndpointInput, SavedEndpoint } from '@upfleet/proto/rest';
import type { EndpointKind } from '@upfleet/proto/assertions';
import { maskStep, type BrowserStep } from '@upfleet/proto/browser-steps';
import { DEFAULT_SLO_WINDOW_DAYS } from '@upfleet/proto/schemas';
import type { SecretBox } from '../lib/crypto';
import type { Db } from './db';

type Row = Record<string, unknown>;

// Most endpoints share a handful of region lists: parse each distinct JSON text once.
const regionLists = new Map<string, string[]>();
function parseRegions(text: string): string[] {
  let list = regionLists.get(text);
  if (!list) {
    if (regionLists.size > 10_000) regionLists.clear();
    list = Object.freeze(JSON.parse(text)) as string[];
    regionLists.set(text, list);
  }
  return list;
}

// ---- check options: the `kind` column and `check_config` JSON ----

/** check_config as stored: a secret header's value sealed (`sealed`), never in clear. */
interface StoredCheck extends Omit<EndpointCheck, 'kind' | 'request' | 'steps'> {
  request?: Omit<NonNullable<EndpointCheck['request']>, 'headers'> & { headers: Array<{ name: string; value?: string; sealed?: string; secret?: boolean }> };
  /** browser: a secret fill's value sealed (`sealed`), never in clear */
  steps?: Array<BrowserStep & { sealed?: string }>;
}

/** A stored step as the API shows it: a secret fill without its value. */
const stepView = (s: BrowserStep & { sealed?: string }): BrowserStep => {
  const { sealed: _s, ...rest } = s;
  return maskStep(rest);
};

/** What the service stores for an endpoint's check (headers in clear; a secret one without value keeps its stored value). */
export type CheckInput = EndpointCheck & { kind: EndpointKind };

const parseCheck = (text: unknown): StoredCheck => (typeof text === 'string' && text ? (JSON.parse(text) as StoredCheck) : {});

/**
 * The API's view: secret header values are write-only. An endpoint without a check row (a plain
 * http GET) says `kind: 'http'` too, so a client never has to know what an absent kind meant.
 */
function checkView(kind: unknown, config: unknown): EndpointCheck & { kind: EndpointKind } {
  if (kind === null || kind === undefined) return { kind: 'http' };
  const c = parseCheck(config);
  const out = { kind: kind as EndpointKind, ...c } as EndpointCheck & { kind: EndpointKind };
  if (c.request) out.request = { ...c.request, headers: c.request.headers.map((h) => (h.secret ? { name: h.name, secret: true } : { name: h.name, value: h.value ?? '' })) };
  if (c.steps) out.steps = c.steps.map(stepView);
  return out;
}

/** A check's options in one canonical text: key order, header-name case and empty lists do not
 *  count; a secret header counts by name (its value is sealed, and sealed differently each time). */
function checkIdentity(kind: EndpointKind, check: StoredCheck | EndpointCheck): string {
  const { kind: _k, ...rest } = check as EndpointCheck;
  const c = { ...rest } as Record<string, unknown>;
  const request = (check).request;
  if (request) {
    c.request = { ...request, headers: request.headers.map((h) => (h.secret ? { name: h.name.toLowerCase(), secret: true } : { name: h.name.toLowerCase(), value: h.value ?? '' })) };
  }
  const steps = (check).steps;
  if (steps) c.steps = steps.map(stepView);
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && !(Array.isArray(x) && x.length === 0)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, canon(x)]));
    }
    return v;
  };
  return JSON.stringify(canon({ ...c, kind }));
}

export const toEndpoint = (r: Row): SavedEndpoint => ({
  url_id: r.url_id as number,
  guid: r.guid as string,
  name: r.name as string,
  url: r.url as string,
  description: r.description as string,
  regions: parseRegions(r.regions as string),
  ping_host: Boolean(r.ping_host),
  cert_expiry: Boolean(r.cert_expiry),
  response_code: Boolean(r.response_code),
  response_time: Boolean(r.response_time),
  monitoring_enabled: Boolean(r.monitoring_enabled),
  created_at: r.created_at as string,
  ...ownInterval(r.check_frequency_seconds),
  ...slo(r.slo_target, r.slo_window_days),
  ...checkView(r.kind, r.check_config),
  escalation_policy_id: (r.escalation_policy_id as number | null) ?? null,
  depends_on: (r.depends_on as number | null) ?? null,
});

/** An endpoint's own interval, when it has one (absent: its plan's). */
const ownInterval = (v: unknown): { check_frequency_seconds?: number } => (typeof v === 'number' ? { check_frequency_seconds: v } : {});

/** An endpoint's SLO fields as answers carry them (no target: none). */
const slo = (target: unknown, windowDays: unknown): { slo_target?: number; slo_window_days: number } => ({
  ...(typeof target === 'number' ? { slo_target: target } : {}),
  slo_window_days: typeof windowDays === 'number' ? windowDays : Number(windowDays ?? DEFAULT_SLO_WINDOW_DAYS),
});

/**
 * What a save writes: the body's fields with its own interval (null: the plan's) and its SLO
 * (undefined on an update: the stored one stays; a create stores none and 30 days).
 */
export type EndpointWrite = Required<EndpointInput> & {
  check_frequency_seconds?: number | null; slo_target?: number | null; slo_window_days?: number;
  /** Its escalation policy and the endpoint it depends on (undefined on an update: kept; null: none). */
  escalation_policy_id?: number | null; depends_on?: number | null;
};

/** Monitoring view of an endpoint with its owner's plan, for the assignment engine. */
export interface MonitoredEndpoint {
  url_id: number;
  url: string;
  regions: string[];
  ping_host: boolean;
  cert_expiry: boolean;
  response_code: boolean;
  response_time: boolean;
  check_frequency_seconds: number;
  retention_days: number;
  /** Absent: http. */
  kind?: EndpointKind;
  /** The check's options with secret header values opened (they go to the agent that sends them). */
  check?: EndpointCheck;
}

/** A monitored endpoint with its owner and name (what an alert says). */
export interface OwnedMonitoredEndpoint extends MonitoredEndpoint {
  user_id: number;
  name: string;
  /** Its incidents follow this escalation policy; null: every enabled method at once. */
  escalation_policy_id: number | null;
  /** While this endpoint has an open down incident, this one's incidents send nothing. */
  depends_on: number | null;
}

/** A list row (raw array, in the select's column order) as the API's endpoint. */
function listItem(r: unknown[]): SavedEndpoint {
  return {
    url_id: r[0] as number,
    guid: r[1] as string,
    name: r[2] as string,
    url: r[3] as string,
    description: r[4] as string,
    regions: parseRegions(r[5] as string),
    ping_host: r[6] === 1,
    cert_expiry: r[7] === 1,
    response_code: r[8] === 1,
    response_time: r[9] === 1,
    monitoring_enabled: r[10] === 1,
    created_at: r[11] as string,
    ...ownInterval(r[14]),
    ...slo(r[15], r[16]),
    ...checkView(r[12], r[13]),
    escalation_policy_id: (r[17] as number | null) ?? null,
    depends_on: (r[18] as number | null) ?? null,
  };
}

// Every query that touches a user's rows names the owner: a wrong id answers "not found".
export function createEndpointsRepo(db: Db, box?: SecretBox) {
  const q = {
    // Arrays, not objects: a 1,000-endpoint dashboard list is read on every page load.
    listRaw: db.prepare(`SELECT url_id, guid, name, url, description, regions, ping_host, cert_expiry, response_code,
      response_time, monitoring_enabled, created_at, (SELECT kind FROM endpoint_checks c WHERE c.url_id = endpoints.url_id),
      (SELECT config FROM endpoint_checks c WHERE c.url_id = endpoints.url_id), check_frequency_seconds, slo_target, slo_window_days, escalation_policy_id, depends_on FROM endpoints WHERE user_id = ? ORDER BY url_id`).raw(true),
    pageRaw: db.prepare(`SELECT url_id, guid, name, url, description, regions, ping_host, cert_expiry, response_code,
      response_time, monitoring_enabled, created_at, (SELECT kind FROM endpoint_checks c WHERE c.url_id = endpoints.url_id),
      (SELECT config FROM endpoint_checks c WHERE c.url_id = endpoints.url_id), check_frequency_seconds, slo_target, slo_window_days, escalation_policy_id, depends_on FROM endpoints WHERE user_id = ? ORDER BY url_id LIMIT ? OFFSET ?`).raw(true),
    get: db.prepare(`SELECT e.*, c.kind, c.config AS check_config FROM endpoints e LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.url_id = ? AND e.user_id = ?`),
    count: db.prepare('SELECT COUNT(*) FROM endpoints WHERE user_id = ?').pluck(),
    countActive: db.prepare('SELECT COUNT(*) FROM endpoints WHERE user_id = ? AND monitoring_enabled = 1').pluck(),
    countKind: db.prepare('SELECT COUNT(*) FROM endpoints e JOIN endpoint_checks c ON c.url_id = e.url_id WHERE e.user_id = ? AND c.kind = ? AND e.url_id != ?').pluck(),
    insert: db.prepare(`INSERT INTO endpoints (guid, user_id, name, url, description, regions, ping_host, cert_expiry, response_code, response_time, check_frequency_seconds,
        slo_target, slo_window_days, escalation_policy_id, depends_on)
      VALUES (@guid, @user_id, @name, @url, @description, @regions, @ping_host, @cert_expiry, @response_code, @response_time, @check_frequency_seconds,
        @slo_target, COALESCE(@slo_window_days, 30), @escalation_policy_id, @depends_on)`),
    update: db.prepare(`UPDATE endpoints SET name = @name, url = @url, description = @description, regions = @regions,
      ping_host = @ping_host, cert_expiry = @cert_expiry, response_code = @response_code, response_time = @response_time,
      check_frequency_seconds = CASE WHEN @keep_interval = 1 THEN check_frequency_seconds ELSE @check_frequency_seconds END,
      slo_target = CASE WHEN @keep_slo_target = 1 THEN slo_target ELSE @slo_target END,
      slo_window_days = COALESCE(@slo_window_days, slo_window_days),
      escalation_policy_id = CASE WHEN @keep_policy = 1 THEN escalation_policy_id ELSE @escalation_policy_id END,
      depends_on = CASE WHEN @keep_depends = 1 THEN depends_on ELSE @depends_on END,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE url_id = @url_id AND user_id = @user_id`),
    toggle: db.prepare("UPDATE endpoints SET monitoring_enabled = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE url_id = ? AND user_id = ?"),
    delete: db.prepare('DELETE FROM endpoints WHERE url_id = ? AND user_id = ?'),
    dropDependents: db.prepare('UPDATE endpoints SET depends_on = NULL WHERE depends_on = ? AND user_id = ?'),
    dependsOn: db.prepare('SELECT depends_on FROM endpoints WHERE url_id = ? AND user_id = ?').pluck(),
    policyExists: db.prepare('SELECT 1 FROM escalation_policies WHERE escalation_policy_id = ? AND user_id = ?').pluck(),
    monitored: db.prepare(`SELECT e.url_id, e.url, e.regions, e.ping_host, e.cert_expiry, e.response_code, e.response_time,
        c.kind, c.config AS check_config, MAX(COALESCE(e.check_frequency_seconds, 0), p.check_frequency_seconds) AS check_frequency_seconds, p.retention_days
      FROM endpoints e JOIN users u ON u.id = e.user_id JOIN packages p ON p.package_id = u.package_id
      LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.monitoring_enabled = 1`),
    monitoredPage: db.prepare(`SELECT e.url_id, e.url, e.regions, e.ping_host, e.cert_expiry, e.response_code, e.response_time,
        c.kind, c.config AS check_config, MAX(COALESCE(e.check_frequency_seconds, 0), p.check_frequency_seconds) AS check_frequency_seconds, p.retention_days
      FROM endpoints e JOIN users u ON u.id = e.user_id JOIN packages p ON p.package_id = u.package_id
      LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.monitoring_enabled = 1 AND e.url_id > ? ORDER BY e.url_id LIMIT ?`),
    // every endpoint, monitored or paused: a restarted agent's backlog may be for one switched off since
    withPaused: db.prepare(`SELECT e.url_id, e.url, e.regions, e.ping_host, e.cert_expiry, e.response_code, e.response_time,
        c.kind, c.config AS check_config, MAX(COALESCE(e.check_frequency_seconds, 0), p.check_frequency_seconds) AS check_frequency_seconds, p.retention_days
      FROM endpoints e JOIN users u ON u.id = e.user_id JOIN packages p ON p.package_id = u.package_id
      LEFT JOIN endpoint_checks c ON c.url_id = e.url_id`),
    withPausedById: db.prepare(`SELECT e.url_id, e.url, e.regions, e.ping_host, e.cert_expiry, e.response_code, e.response_time,
        c.kind, c.config AS check_config, MAX(COALESCE(e.check_frequency_seconds, 0), p.check_frequency_seconds) AS check_frequency_seconds, p.retention_days
      FROM endpoints e JOIN users u ON u.id = e.user_id JOIN packages p ON p.package_id = u.package_id
      LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.url_id = ?`),
    withPausedByIds: db.prepare(`SELECT e.url_id, e.url, e.regions, e.ping_host, e.cert_expiry, e.response_code, e.response_time,
        c.kind, c.config AS check_config, MAX(COALESCE(e.check_frequency_seconds, 0), p.check_frequency_seconds) AS check_frequency_seconds, p.retention_days
      FROM endpoints e JOIN users u ON u.id = e.user_id JOIN packages p ON p.package_id = u.package_id
      LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.url_id IN (SELECT value FROM json_each(?))`),
    monitoredById: db.prepare(`SELECT e.url_id, e.user_id, e.name, e.escalation_policy_id, e.depends_on, e.url, e.regions, e.ping_host, e.cert_expiry, e.response_code, e.response_time,
        c.kind, c.config AS check_config, MAX(COALESCE(e.check_frequency_seconds, 0), p.check_frequency_seconds) AS check_frequency_seconds, p.retention_days
      FROM endpoints e JOIN users u ON u.id = e.user_id JOIN packages p ON p.package_id = u.package_id
      LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.url_id = ? AND e.monitoring_enabled = 1`),
    monitoredByIds: db.prepare(`SELECT e.url_id, e.user_id, e.name, e.escalation_policy_id, e.depends_on, e.url, e.regions, e.ping_host, e.cert_expiry, e.response_code, e.response_time,
        c.kind, c.config AS check_config, MAX(COALESCE(e.check_frequency_seconds, 0), p.check_frequency_seconds) AS check_frequency_seconds, p.retention_days
      FROM endpoints e JOIN users u ON u.id = e.user_id JOIN packages p ON p.package_id = u.package_id
      LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.url_id IN (SELECT value FROM json_each(?)) AND e.monitoring_enabled = 1`),
    createdAt: db.prepare('SELECT url_id, created_at FROM endpoints WHERE url_id IN (SELECT value FROM json_each(?))').raw(true),
    sameUrl: db.prepare(`SELECT c.kind, c.config FROM endpoints e LEFT JOIN endpoint_checks c ON c.url_id = e.url_id
      WHERE e.user_id = ? AND e.url = ? AND e.url_id != ?`),
    checkConfig: db.prepare('SELECT c.config FROM endpoint_checks c JOIN endpoints e ON e.url_id = c.url_id WHERE c.url_id = ? AND e.user_id = ?').pluck(),
    // endpoint_checks: only endpoints with a kind or options have a row (none: an http GET)
    putCheck: db.prepare(`INSERT INTO endpoint_checks (url_id, kind, config) VALUES (?, ?, ?)
      ON CONFLICT(url_id) DO UPDATE SET kind = excluded.kind, config = excluded.config`),
    dropCheck: db.prepare('DELETE FROM endpoint_checks WHERE url_id = ?'),
  };
  /** check_config to store: secret header values sealed; one sent without a value keeps the stored one. */
  const storedCheck = (check: CheckInput | undefined, previous: StoredCheck): string | null => {
    if (!check || check.kind === 'http' && !check.request && !check.assertions?.length) return null;
    const { kind: _kind, steps, ...rest } = check;
    const out: StoredCheck = { ...rest };
    if (steps) {
      const before = new Map((previous.steps ?? []).filter((s) => s.secret && s.sealed).map((s) => [s.selector ?? '', s.sealed!]));
      out.steps = steps.map((s) => {
        if (s.action !== 'fill' || !s.secret) return s;
        if (!box) throw new Error('endpoints repo: a secret fill needs the secret box');
        const sealed = s.value !== undefined ? box.seal(s.value) : before.get(s.selector ?? '');
        if (sealed === undefined) throw new Error(`secret fill ${s.selector ?? ''} has no value`);
        const { value: _v, ...step } = s;
        return { ...step, sealed };
      });
    }
    if (check.request) {
      const before = new Map((previous.request?.headers ?? []).filter((h) => h.secret && h.sealed).map((h) => [h.name.toLowerCase(), h.sealed!]));
      out.request = {
        ...check.request,
        headers: check.request.headers.map((h) => {
          if (!h.secret) return { name: h.name, value: h.value ?? '' };
          if (!box) throw new Error('endpoints repo: a secret header needs the secret box');
          const sealed = h.value !== undefined ? box.seal(h.value) : before.get(h.name.toLowerCase());
          if (sealed === undefined) throw new Error(`secret header ${h.name} has no value`);
          return { name: h.name, sealed, secret: true };
        }),
      };
    }
    return JSON.stringify(out);
  };
  /** The check with secret header values opened, for the assignment sent to the agent. */
  const openCheck = (r: Row): EndpointCheck | undefined => {
    const parsed = parseCheck(r.check_config);
    // the agent that types a secret fill gets its value; nothing else does
    const { steps, ...c } = parsed;
    if (steps) (c as EndpointCheck).steps = steps.map(({ sealed, ...s }) => (sealed !== undefined ? { ...s, value: box ? box.open(sealed) : '' } : s));
    if (!c.request) return c;
    return { ...c, request: { ...c.request, headers: c.request.headers.map((h) => ({
      name: h.name, value: h.sealed !== undefined ? (box ? box.open(h.sealed) : '') : (h.value ?? ''),
      // the agent keeps a secret header to the origin it was written for
      ...(h.secret ? { secret: true } : {}),
    })) } };
  };
  const toMonitored = (r: Row): MonitoredEndpoint => ({ ...monitoredRow(r), kind: (r.kind as EndpointKind | undefined) ?? 'http', check: openCheck(r) });
  const toOwned = (r: Row): OwnedMonitoredEndpoint => ({
    ...toMonitored(r), user_id: r.user_id as number, name: r.name as string,
    escalation_policy_id: (r.escalation_policy_id as number | null) ?? null, depends_on: (r.depends_on as number | null) ?? null,
  });
  const saveCheck = (urlId: number, check: CheckInput | undefined, previous: StoredCheck) => {
    const config = storedCheck(check, previous);
    if (config === null) q.dropCheck.run(urlId);
    else q.putCheck.run(urlId, check!.kind, config);
  };
  const params = (userId: number, input: EndpointWrite) => ({
    user_id: userId,
    name: input.name,
    url: input.url,
    description: input.description,
    regions: JSON.stringify(input.regions),
    ping_host: input.ping_host ? 1 : 0,
    cert_expiry: input.cert_expiry ? 1 : 0,
    response_code: input.response_code ? 1 : 0,
    response_time: input.response_time ? 1 : 0,
    check_frequency_seconds: input.check_frequency_seconds ?? null,
    escalation_policy_id: input.escalation_policy_id ?? null,
    depends_on: input.depends_on ?? null,
    slo_target: input.slo_target ?? null,
    slo_window_days: input.slo_window_days ?? null,
  });
  // Bumped on every write of a user's endpoints (this repo is their only writer), so a cached
  // rendering of the list knows when it is stale.
  const versions = new Map<number, number>();
  const changed = (userId: number, did: boolean) => {
    if (did) versions.set(userId, (versions.get(userId) ?? 0) + 1);
    return did;
  };
  return {
    /** Changes with every write of this user's endpoints made by this process. */
    version: (userId: number) => versions.get(userId) ?? 0,
    list: (userId: number) => (q.listRaw.all(userId) as unknown[][]).map(listItem),
    /** One page of the list, in the same order (oldest first). */
    page: (userId: number, limit: number, offset: number) => (q.pageRaw.all(userId, limit, offset) as unknown[][]).map(listItem),
    get: (userId: number, urlId: number) => {
      const r = q.get.get(urlId, userId) as Row | undefined;
      return r && toEndpoint(r);
    },
    count: (userId: number) => q.count.get(userId) as number,
    /** Whether the user already has this very check (same target and the same method, headers,
     *  assertions, ...): two different checks of one URL are two endpoints, a copy is not. */
    checkTaken: (userId: number, url: string, check: CheckInput | undefined, exceptUrlId = 0): boolean => {
      const wanted = checkIdentity(check?.kind ?? 'http', check ?? {});
      return (q.sameUrl.all(userId, url, exceptUrlId) as Row[]).some((r) => checkIdentity((r.kind as EndpointKind | null) ?? 'http', parseCheck(r.config)) === wanted);
    },
    countActive: (userId: number) => q.countActive.get(userId) as number,
    /** The user's endpoints of one kind, but `exceptUrlId` (the one being edited). */
    countKind: (userId: number, kind: EndpointKind, exceptUrlId = 0) => q.countKind.get(userId, kind, exceptUrlId) as number,
    /** Names of the endpoint's secret headers (lower case): these may be sent without a value to keep it. */
    secretHeaderNames: (userId: number, urlId: number): Set<string> =>
      new Set((parseCheck(q.checkConfig.get(urlId, userId)).request?.headers ?? []).filter((h) => h.secret).map((h) => h.name.toLowerCase())),
    /** Selectors of the endpoint's secret fills: these may be sent without a value to keep it. */
    secretFillSelectors: (userId: number, urlId: number): Set<string> =>
      new Set((parseCheck(q.checkConfig.get(urlId, userId)).steps ?? []).filter((s) => s.secret && s.sealed).map((s) => s.selector ?? '')),
    /** The endpoint's secret fill values opened, by selector ("Run now" of an edited check); undefined: not the user's. */
    secretFillValues: (userId: number, urlId: number): Map<string, string> | undefined => {
      const raw = q.checkConfig.get(urlId, userId);
      if (raw === undefined) return undefined;
      const steps = parseCheck(raw).steps ?? [];
      return new Map(steps.filter((s) => s.secret && s.sealed).map((s) => [s.selector ?? '', box ? box.open(s.sealed!) : '']));
    },
    insert: (userId: number, guid: string, input: EndpointWrite, check?: CheckInput): number => {
      const id = db.transaction(() => {
        const urlId = Number(q.insert.run({ ...params(userId, input), guid }).lastInsertRowid);
        saveCheck(urlId, check, {});
        return urlId;
      })();
      changed(userId, true);
      return id;
    },
    update: (userId: number, urlId: number, input: EndpointWrite, check?: CheckInput): boolean =>
      changed(userId, db.transaction(() => {
        const previous = parseCheck(q.checkConfig.get(urlId, userId));
        // A write without the field (a plan change editing regions) keeps the endpoint's own interval.
        const did = q.update.run({ ...params(userId, input), url_id: urlId, keep_interval: input.check_frequency_seconds === undefined ? 1 : 0,
          keep_policy: input.escalation_policy_id === undefined ? 1 : 0, keep_depends: input.depends_on === undefined ? 1 : 0,
          keep_slo_target: input.slo_target === undefined ? 1 : 0 }).changes === 1;
        if (did) saveCheck(urlId, check, previous);
        return did;
      })()),
    toggle: (userId: number, urlId: number, enabled: boolean): boolean => changed(userId, q.toggle.run(enabled ? 1 : 0, urlId, userId).changes === 1),
    /** Deletes the endpoint; those that depended on it depend on nothing from now on. */
    delete: (userId: number, urlId: number): boolean => changed(userId, db.transaction(() => {
      q.dropDependents.run(urlId, userId);
      return q.delete.run(urlId, userId).changes === 1;
    })()),
    /** The endpoint this one depends on (null: none; undefined: no such endpoint of the user). */
    dependsOn: (userId: number, urlId: number): number | null | undefined => q.dependsOn.get(urlId, userId) as number | null | undefined,
    policyExists: (userId: number, policyId: number): boolean => q.policyExists.get(policyId, userId) !== undefined,
    /** All monitoring-enabled endpoints with their owner's plan (control-plane internal, not user-facing). */
    listMonitored: (page?: { afterId: number; limit: number }): MonitoredEndpoint[] =>
      (page ? q.monitoredPage.all(page.afterId, page.limit) as Row[] : q.monitored.all() as Row[]).map(toMonitored),
    /** Every endpoint as listMonitored gives it, paused ones too (results made before a switch-off still count). */
    listWithPaused: (): MonitoredEndpoint[] => (q.withPaused.all() as Row[]).map(toMonitored),
    /** One endpoint as listWithPaused gives it: a late result names one check, so its endpoint alone is read. */
    withPausedById: (urlId: number): MonitoredEndpoint | undefined => {
      const r = q.withPausedById.get(urlId) as Row | undefined;
      return r && toMonitored(r);
    },
    /** withPausedById for many endpoints in one query (a backlog after a restart names thousands). */
    withPausedByIds: (urlIds: readonly number[]): MonitoredEndpoint[] =>
      urlIds.length === 0 ? [] : (q.withPausedByIds.all(JSON.stringify(urlIds)) as Row[]).map(toMonitored),
    /** One monitoring-enabled endpoint with its owner and plan; undefined when deleted or paused (assignments, alerting). */
    monitoredById: (urlId: number): OwnedMonitoredEndpoint | undefined => {
      const r = q.monitoredById.get(urlId) as Row | undefined;
      return r && toOwned(r);
    },
    /** monitoredById for many endpoints in one query (after a restart every endpoint's first result arrives within a minute). */
    monitoredByIds: (urlIds: readonly number[]): OwnedMonitoredEndpoint[] =>
      urlIds.length === 0 ? [] : (q.monitoredByIds.all(JSON.stringify(urlIds)) as Row[]).map(toOwned),
    /** When each endpoint was created (ms), for bounding its results; absent ids are not returned. */
    createdAtMs: (urlIds: number[]): Map<number, number> =>
      new Map((q.createdAt.all(JSON.stringify(urlIds)) as Array<[number, string]>).map(([id, at]) => [id, Date.parse(at)])),
  };
}
export type EndpointsRepo = ReturnType<typeof createEndpointsRepo>;

function monitoredRow(r: Row): MonitoredEndpoint {
  return {
    url_id: r.url_id as number,
    url: r.url as string,
    regions: JSON.parse(r.regions as string) as string[],
    ping_host: Boolean(r.ping_host),
    cert_expiry: Boolean(r.cert_expiry),
    response_code: Boolean(r.response_code),
    response_time: Boolean(r.response_time),
    check_frequency_seconds: r.check_frequency_seconds as number,
    retention_days: r.retention_days as number,
  };
}
