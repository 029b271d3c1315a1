// Status pages: the owner side (pages, components, reports with updates, the plan's
// max_status_pages) and the public view (overall and component state, 90 daily bars, reports,
// maintenance from maintenance/), cached per page and revalidated with an ETag.
// Over 350 lines on purpose: the owner side, custom domains and the public view share the per-page
// version that tells a cached view it is stale; each change bumps it in the same function.
import crypto from 'node:crypto';
import { planViolations } from '@upfleet/proto/plan';
import { fromZonedLocal, zonedDate } from '@upfleet/proto/time-zone';
import {
  COMPONENT_STATES, type ComponentState, type DomainVerification, type Package, type PublicStatus, type PublicStatusDay, type ReportImpact, type StatusPage, type StatusReport,
} from '@upfleet/proto/rest';
import type { StatusPageBody, StatusReportBody, StatusUpdateBody } from '@upfleet/proto/schemas';
import { badRequest, conflict, notFound, planRefused } from '../errors';
import { hashPassword, safeEqual, verifyPassword } from '../lib/crypto';
import type { MaintenanceService } from '../maintenance';
import type { DailyUptimeSource } from '../results/status-queries';
import type { PageRow, StatusPagesRepo } from '../store/status-pages-repo';
import type { TxtLookup } from '../lib/dns-txt';

export const STATUS_DAYS = 90;
/** The TXT record that proves a custom domain holds the page's custom_domain_token. */
export const domainRecordName = (domain: string) => `_upfleet-challenge.${domain}`;
export const OWN_HOST_DOMAIN = 'This domain belongs to this Upfleet server. Please use a domain of your own.';
export const DOMAIN_FIRST = 'Set a custom domain on this status page first.';
/** A claim is checked again this long after its last check (the daily timer). */
export const DOMAIN_RECHECK_MS = 86_400_000;
const DAY_MS = 86_400_000;
/** A rendered public view is reused this long (the answer says max-age=30), unless the page changes. */
export const PUBLIC_VIEW_TTL_MS = 10_000;


const rank = (s: ComponentState) => COMPONENT_STATES.indexOf(s);
const worst = (a: ComponentState, b: ComponentState) => (rank(b) > rank(a) ? b : a);

export interface StatusEvents {
  /** A report was opened or got an update (subscribers' mail). */
  reportChanged?(page: PageRow, report: StatusReport, kind: 'opened' | 'updated'): void | Promise<void>;
}

export interface PublicView {
  /** The JSON answer, encoded once per rendering. */
  body: Buffer;
  etag: string;
  data: PublicStatus;
  page: PageRow;
}

export function createStatusPageService(deps: {
  repo: StatusPagesRepo;
  /** The windows a public view shows; a window's change makes every cached view stale. */
  maintenance: MaintenanceService;
  planOf: (userId: number) => Package | Promise<Package>;
  uptime?: DailyUptimeSource;
  events?: StatusEvents;
  /** Signs the cookie that opens a password-protected page (changes when its password does). */
  cookieKey: Buffer;
  /** TXT lookups for custom-domain proof (DNS_RESOLVERS); without it no claim is ever proved. */
  lookupTxt?: TxtLookup;
  /** The product's own host (PUBLIC_URL's): it and its subdomains are no page's custom domain. */
  ownHost?: () => string | null;
  logger?: { warn(obj: object, msg: string): void };
  now?: () => number;
}) {
  const { repo } = deps;
  const now = deps.now ?? Date.now;

  // Bumped on every change a public view shows (per page), so a cached view knows it is stale.
  const versions = new Map<number, number>();
  let globalVersion = 0;
  const touch = (pageId?: number) => {
    if (pageId === undefined) globalVersion++;
    else versions.set(pageId, (versions.get(pageId) ?? 0) + 1);
  };
  const versionOf = (pageId: number) => `${globalVersion}.${deps.maintenance.version()}.${versions.get(pageId) ?? 0}`;

  async function page(ownerId: number, pageId: number): Promise<PageRow> {
    const p = await repo.ownedPage(ownerId, pageId);
    if (!p) throw notFound('Status page not found');
    return p;
  }

  async function checkComponents(ownerId: number, body: StatusPageBody) {
    for (const c of body.components) {
      if (c.endpoint_id !== null && !(await repo.ownsEndpoint(ownerId, c.endpoint_id))) throw notFound('Endpoint not found');
    }
  }

  async function checkUnique(body: StatusPageBody, pageId: number | null) {
    const bySlug = await repo.bySlug(body.slug);
    if (bySlug && bySlug.page_id !== pageId) throw conflict('This slug is already taken. Please choose another one.');
    if (body.custom_domain) {
      // Only a proved (verified) claim holds a name: an unproved one blocks nobody.
      const holder = await repo.verifiedPageOf(body.custom_domain);
      if (holder !== undefined && holder !== pageId) throw conflict('This custom domain is already used by another status page.');
    }
  }

  /** A custom domain must be the owner's to prove (not this server's host) and sold by the plan. */
  async function checkDomainPolicy(ownerId: number, domain: string | null, current: string | null): Promise<void> {
    if (!domain) return;
    const own = deps.ownHost?.()?.toLowerCase().replace(/\.$/, '');
    if (domain === 'localhost' || domain.endsWith('.localhost') || (own && (domain === own || domain.endsWith(`.${own}`)))) throw badRequest(OWN_HOST_DOMAIN);
    if (domain === current) return; // kept as it was: editing a page after a downgrade still works
    const v = planViolations(await deps.planOf(ownerId), { customDomain: true })[0];
    if (v) throw planRefused(v);
  }

  /** Looks the claim's TXT record up and records the outcome; a failed lookup changes nothing. */
  async function settleClaim(p: PageRow): Promise<boolean> {
    const claim = p.custom_domain_claim;
    if (!claim) return false;
    const t = now();
    if (!(await deps.planOf(p.user_id)).custom_domains) {
      await repo.disproveDomain(p.page_id, claim, t);
      touch(p.page_id);
      return false;
    }
    const answer = deps.lookupTxt ? await deps.lookupTxt(domainRecordName(claim)) : { ok: false as const, missing: false, error: 'no resolver' };
    const found = answer.ok && answer.records.includes(p.custom_domain_token);
    if (found) await repo.proveDomain(p.page_id, claim, t);
    else if (answer.ok || answer.missing) await repo.disproveDomain(p.page_id, claim, t);
    else {
      await repo.domainChecked(p.page_id, t);
      deps.logger?.warn({ pageId: p.page_id, domain: claim, error: answer.error }, 'custom domain lookup failed');
    }
    touch(p.page_id);
    return found;
  }

  const fields = (b: StatusPageBody) => ({
    slug: b.slug, title: b.title, description: b.description, published: b.published, custom_domain: b.custom_domain, timezone: b.timezone, auto_reports: b.auto_reports,
  });

  async function checkAffected(pageId: number, affected: Array<{ component_id: number }> | null) {
    if (!affected) return;
    const ids = new Set((await repo.components(pageId)).map((c) => c.component_id));
    for (const a of affected) if (!ids.has(a.component_id)) throw badRequest(`Component ${a.component_id} is not on this status page`);
  }

  async function reportOf(ownerId: number, pageId: number, reportId: number): Promise<StatusReport> {
    await page(ownerId, pageId);
    const r = await repo.report(pageId, reportId);
    if (!r) throw notFound('Report not found');
    return r;
  }

  // ---- auto reports: an alerting incident on a component's endpoint opens and resolves a report ----
  async function incidentOpened(i: { incident_id: number; url_id: number; condition: string }): Promise<void> {
    for (const p of await repo.pagesShowingEndpoint(i.url_id)) {
      touch(p.page_id);
      if (p.auto_reports !== 1 || (await repo.openReportOfIncident(p.page_id, i.incident_id))) continue;
      const ids = await repo.componentsOfEndpoint(p.page_id, i.url_id);
      const names = (await repo.components(p.page_id)).filter((c) => ids.includes(c.component_id)).map((c) => c.name);
      const down = i.condition === 'down';
      const impact: ReportImpact = down ? 'major_outage' : 'degraded';
      const what = names.join(', ') || 'A component';
      const id = await repo.createReport(p.page_id, {
        title: down ? `${what} is down` : `${what}: degraded performance`,
        status: 'investigating',
        message: down ? `We are investigating an outage of ${what}.` : `We are investigating degraded performance of ${what}.`,
        affected: ids.map((component_id) => ({ component_id, impact })),
        incidentId: i.incident_id,
      }, now());
      touch(p.page_id);
      await deps.events?.reportChanged?.(p, (await repo.report(p.page_id, id))!, 'opened');
    }
  }
  async function incidentResolved(i: { incident_id: number; url_id: number }): Promise<void> {
    for (const p of await repo.pagesShowingEndpoint(i.url_id)) {
      touch(p.page_id);
      const open = await repo.openReportOfIncident(p.page_id, i.incident_id);
      if (!open) continue;
      await repo.addUpdate(open.report_id, { status: 'resolved', message: 'This incident has been resolved.', affected: null }, now());
      touch(p.page_id);
      await deps.events?.reportChanged?.(p, (await repo.report(p.page_id, open.report_id))!, 'updated');
    }
  }

  let hooks: Promise<void> = Promise.resolve();
  const inOrder = <T>(fn: (i: T) => Promise<void>) => (i: T): Promise<void> => {
    const run = hooks.then(() => fn(i));
    hooks = run.catch(() => undefined);
    return run;
  };

  // ---- public view ----
  const cache = new Map<number, { version: string; at: number; view: Promise<PublicView> }>();

  async function render(p: PageRow): Promise<PublicView> {
    const t = now();
    const zone = p.timezone;
    const components = await repo.components(p.page_id);
    const urlIds = [...new Set(components.map((c) => c.endpoint_id).filter((id): id is number => id !== null))];
    // The 90 days end with today (page-local); the first starts at local midnight 89 days earlier.
    const today = zonedDate(t, zone);
    const firstDayMs = fromZonedLocal(`${new Date(Date.parse(`${today}T00:00:00Z`) - (STATUS_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)}T00:00`, zone);
    const dates = Array.from({ length: STATUS_DAYS }, (_, i) => new Date(Date.parse(`${today}T00:00:00Z`) - (STATUS_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10));

    const maintenance = await deps.maintenance.spansSince(urlIds, firstDayMs, t);
    const daily = deps.uptime && urlIds.length > 0 ? await deps.uptime.dailyUptime(urlIds, firstDayMs, t, zone, maintenance) : new Map<number, Map<string, [number, number]>>();
    const incidents = await repo.openIncidents(urlIds);
    const windows = await deps.maintenance.windowsForEndpoints(urlIds, t, t + 30 * DAY_MS, t);
    const reports = await repo.reportsSince(p.page_id, firstDayMs);
    const open = reports.filter((r) => r.resolved_at === null);

    const reportsByComponentDay = new Map<string, Array<{ report_id: number; title: string }>>();
    for (const r of reports) {
      const from = zonedDate(Date.parse(r.created_at), zone);
      const to = zonedDate(r.resolved_at ? Date.parse(r.resolved_at) : t, zone);
      for (const a of r.affected) {
        for (const d of dates) {
          if (d < from || d > to) continue;
          const key = `${a.component_id}|${d}`;
          const list = reportsByComponentDay.get(key) ?? [];
          list.push({ report_id: r.report_id, title: r.title });
          reportsByComponentDay.set(key, list);
        }
      }
    }

    let overall: ComponentState = 'operational';
    const out = components.map((c) => {
      let status: ComponentState = 'operational';
      for (const r of open) for (const a of r.affected) if (a.component_id === c.component_id) status = worst(status, a.impact);
      if (windows.some((w) => w.state === 'in_progress' && c.endpoint_id !== null && w.endpoint_ids.includes(c.endpoint_id))) status = worst(status, 'maintenance');
      if (c.endpoint_id !== null) {
        const mine = incidents.filter((i) => i.url_id === c.endpoint_id);
        if (mine.some((i) => i.condition === 'down')) status = 'major_outage';
        else if (mine.length > 0) status = worst(status, 'degraded');
      }
      overall = worst(overall, status);
      const perDay = c.endpoint_id !== null ? daily.get(c.endpoint_id) : undefined;
      let n = 0;
      let ok = 0;
      const days: PublicStatusDay[] = dates.map((date) => {
        const d = perDay?.get(date);
        if (d) {
          n += d[0];
          ok += d[1];
        }
        return { date, uptime: d && d[0] > 0 ? Math.round((d[1] * 10_000) / d[0]) / 100 : null, reports: reportsByComponentDay.get(`${c.component_id}|${date}`) ?? [] };
      });
      return { id: c.component_id, name: c.name, group: c.group, status, uptime_90d: n > 0 ? Math.round((ok * 10_000) / n) / 100 : null, days };
    });

    // The banner counts open incidents; every one it counts is listed, by its report or, without
    // one (it began before this page or its component existed, or auto reports are off), as detected.
    const detected: PublicStatus['detected'] = [];
    for (const i of incidents) {
      const mine = components.filter((c) => c.endpoint_id === i.url_id);
      const ids = mine.map((c) => c.component_id);
      if (ids.length === 0 || open.some((r) => r.incident_id === i.incident_id || r.affected.some((a) => ids.includes(a.component_id)))) continue;
      const what = mine.map((c) => c.name).join(', ');
      const down = i.condition === 'down';
      detected.push({ component_ids: ids, impact: down ? 'major_outage' : 'degraded', title: down ? `${what} is down` : `${what}: degraded performance`, since: new Date(i.opened_at).toISOString() });
    }

    const byEndpoint = new Map<number, number[]>();
    for (const c of components) if (c.endpoint_id !== null) byEndpoint.set(c.endpoint_id, [...(byEndpoint.get(c.endpoint_id) ?? []), c.component_id]);
    const data: PublicStatus = {
      page: { slug: p.slug, title: p.title, description: p.description, timezone: p.timezone },
      overall,
      components: out,
      reports: reports.map(({ page_id: _p, incident_id: _i, ...r }) => r),
      maintenance: windows
        .filter((w) => w.state !== 'completed')
        .map(({ endpoint_ids, ...w }) => ({ ...w, components: [...new Set(endpoint_ids.flatMap((id) => byEndpoint.get(id) ?? []))] })),
      detected,
      generated_at: new Date(t).toISOString(),
    };
    const body = Buffer.from(JSON.stringify({ success: true, data }));
    return { body, data, page: p, etag: `W/"${crypto.createHash('sha1').update(body).digest('base64url')}"` };
  }

  function view(p: PageRow): Promise<PublicView> {
    const version = versionOf(p.page_id);
    const hit = cache.get(p.page_id);
    if (hit && hit.version === version && now() - hit.at < PUBLIC_VIEW_TTL_MS) return hit.view;
    if (cache.size > 10_000) cache.clear();
    const v = render(p);
    cache.set(p.page_id, { version, at: now(), view: v });
    v.catch(() => cache.delete(p.page_id));
    return v;
  }

  const cookieValue = (p: PageRow) => crypto.createHmac('sha256', deps.cookieKey).update(`${p.page_id}:${p.password_hash ?? ''}`).digest('base64url');

  return {
    // ---- pages ----
    list: async (ownerId: number): Promise<StatusPage[]> => Promise.all((await repo.pagesOf(ownerId)).map(repo.toPage)),
    get: async (ownerId: number, pageId: number): Promise<StatusPage> => repo.toPage(await page(ownerId, pageId)),
    slugAvailable: async (slug: string): Promise<boolean> => !(await repo.bySlug(slug)),
    async create(ownerId: number, body: StatusPageBody): Promise<StatusPage> {
      const v = planViolations(await deps.planOf(ownerId), { statusPages: (await repo.countOf(ownerId)) + 1 })[0];
      if (v) throw planRefused(v);
      await checkComponents(ownerId, body);
      await checkDomainPolicy(ownerId, body.custom_domain, null);
      await checkUnique(body, null);
      const hash = body.password ? await hashPassword(body.password) : null;
      // Checked again after the await: another request may have taken the slug or the last page meanwhile.
      const again = planViolations(await deps.planOf(ownerId), { statusPages: (await repo.countOf(ownerId)) + 1 })[0];
      if (again) throw planRefused(again);
      await checkUnique(body, null);
      const id = await repo.createPage(ownerId, fields(body), hash, body.components);
      return repo.toPage(await page(ownerId, id));
    },
    async update(ownerId: number, pageId: number, body: StatusPageBody): Promise<StatusPage> {
      await checkDomainPolicy(ownerId, body.custom_domain, (await page(ownerId, pageId)).custom_domain_claim);
      await checkComponents(ownerId, body);
      await checkUnique(body, pageId);
      const existing = new Set((await repo.components(pageId)).map((c) => c.component_id));
      for (const c of body.components) if (c.component_id !== null && !existing.has(c.component_id)) throw badRequest(`Component ${c.component_id} is not on this status page`);
      const hash = body.password === undefined ? undefined : body.password ? await hashPassword(body.password) : null;
      await page(ownerId, pageId);
      await checkUnique(body, pageId);
      await repo.updatePage(ownerId, pageId, fields(body), hash, body.components);
      touch(pageId);
      return repo.toPage(await page(ownerId, pageId));
    },
    /** POST verify-domain: looks the TXT record up now and answers whether it was found. */
    async verifyDomain(ownerId: number, pageId: number): Promise<DomainVerification> {
      const p = await page(ownerId, pageId);
      const claim = p.custom_domain_claim;
      if (!claim) throw badRequest(DOMAIN_FIRST);
      await checkDomainPolicy(ownerId, claim, null);
      const found = await settleClaim(p);
      const after = await page(ownerId, pageId);
      return {
        found, custom_domain: claim, custom_domain_verified: after.custom_domain !== null && after.custom_domain === after.custom_domain_claim,
        record_name: domainRecordName(claim), record_value: after.custom_domain_token,
      };
    },
    /** The daily check: claims not checked for a day, at most `limit` per call, one lookup at a time. */
    async recheckDomains(limit = 100): Promise<number> {
      const due = await repo.claimsDue(now() - DOMAIN_RECHECK_MS, limit);
      for (const p of due) await settleClaim(p);
      return due.length;
    },
    async remove(ownerId: number, pageId: number): Promise<{ id: number }> {
      if (!(await repo.deletePage(ownerId, pageId))) throw notFound('Status page not found');
      touch(pageId);
      return { id: pageId };
    },

    // ---- reports ----
    async listReports(ownerId: number, pageId: number): Promise<StatusReport[]> {
      await page(ownerId, pageId);
      return repo.allReports(pageId);
    },
    async createReport(ownerId: number, pageId: number, body: StatusReportBody): Promise<StatusReport> {
      const p = await page(ownerId, pageId);
      await checkAffected(pageId, body.affected);
      const id = await repo.createReport(pageId, body, now());
      touch(pageId);
      const r = (await repo.report(pageId, id))!;
      await deps.events?.reportChanged?.(p, r, 'opened');
      return r;
    },
    async editReport(ownerId: number, pageId: number, reportId: number, title: string): Promise<StatusReport> {
      await reportOf(ownerId, pageId, reportId);
      await repo.setReportTitle(pageId, reportId, title);
      touch(pageId);
      return (await repo.report(pageId, reportId))!;
    },
    async removeReport(ownerId: number, pageId: number, reportId: number): Promise<{ report_id: number }> {
      await reportOf(ownerId, pageId, reportId);
      await repo.deleteReport(pageId, reportId);
      touch(pageId);
      return { report_id: reportId };
    },
    async addUpdate(ownerId: number, pageId: number, reportId: number, body: StatusUpdateBody): Promise<StatusReport> {
      const p = await page(ownerId, pageId);
      await reportOf(ownerId, pageId, reportId);
      await checkAffected(pageId, body.affected);
      await repo.addUpdate(reportId, body, now());
      touch(pageId);
      const r = (await repo.report(pageId, reportId))!;
      await deps.events?.reportChanged?.(p, r, 'updated');
      return r;
    },
    async editUpdate(ownerId: number, pageId: number, reportId: number, updateId: number, message: string): Promise<StatusReport> {
      await reportOf(ownerId, pageId, reportId);
      if (!(await repo.setUpdateMessage(reportId, updateId, message))) throw notFound('Update not found');
      touch(pageId);
      return (await repo.report(pageId, reportId))!;
    },
    async removeUpdate(ownerId: number, pageId: number, reportId: number, updateId: number): Promise<StatusReport> {
      const r = await reportOf(ownerId, pageId, reportId);
      if (!(await repo.hasUpdate(reportId, updateId))) throw notFound('Update not found');
      if (r.updates.length === 1) throw badRequest('A report keeps at least one update: delete the report instead');
      await repo.deleteUpdate(reportId, updateId, now());
      touch(pageId);
      return (await repo.report(pageId, reportId))!;
    },

    /** Alerting's incident hooks: auto reports and fresh component states. They run one after another,
     *  in the order alerting called them (the evaluator does not wait): a resolution never overtakes its opening. */
    incidentHooks: { opened: inOrder(incidentOpened), resolved: inOrder(incidentResolved) },

    // ---- public side ----
    /** A published page by slug or custom domain; unpublished and unknown pages are the same 404. */
    async publicPage(by: { slug?: string; host?: string }): Promise<PageRow> {
      const p = by.slug !== undefined ? await repo.bySlug(by.slug.toLowerCase()) : by.host ? await repo.byDomain(by.host.toLowerCase()) : undefined;
      if (!p || p.published !== 1) throw notFound('Status page not found');
      return p;
    },
    /** An owned page's row (subscriber lists). */
    ownedRow: page,
    /** A page by slug, published or not (confirm and unsubscribe links keep working); 404 when unknown. */
    async subscriptionPage(slug: string): Promise<PageRow> {
      const p = await repo.bySlug(slug.toLowerCase());
      if (!p) throw notFound('Status page not found');
      return p;
    },
    /** The published page whose custom domain is `host`, if any (requests to `/` on that host). */
    async customDomainPage(host: string): Promise<PageRow | undefined> {
      if (!host || host === 'localhost' || /^[\d.]+$|:/.test(host)) return undefined;
      const p = await repo.byDomain(host);
      return p && p.published === 1 ? p : undefined;
    },
    /** Whether `password` opens a password-protected page (always true for an open page). */
    async unlocks(p: PageRow, password: string | undefined): Promise<boolean> {
      if (!p.password_hash) return true;
      if (!password) return false;
      return verifyPassword(password, p.password_hash);
    },
    cookieName: (p: PageRow) => `upfleet_status_${p.page_id}`,
    cookieValue,
    cookieOpens: (p: PageRow, value: string | undefined) => Boolean(value && p.password_hash && safeEqual(value, cookieValue(p))),
    view,
    /** Something a page shows changed outside this service (an incident opened or resolved). */
    touch,
  };
}
export type StatusPageService = ReturnType<typeof createStatusPageService>;
