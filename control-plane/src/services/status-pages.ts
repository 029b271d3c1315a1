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
  reportChanged?(page: PageRow, report: StatusReport, kind: 'opened' | 'updated'): void;
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

  function page(ownerId: number, pageId: number): PageRow {
    const p = repo.ownedPage(ownerId, pageId);
    if (!p) throw notFound('Status page not found');
    return p;
  }

  function checkComponents(ownerId: number, body: StatusPageBody) {
    for (const c of body.components) {
      if (c.endpoint_id !== null && !repo.ownsEndpoint(ownerId, c.endpoint_id)) throw notFound('Endpoint not found');
    }
  }

  function checkUnique(body: StatusPageBody, pageId: number | null) {
    const bySlug = repo.bySlug(body.slug);
    if (bySlug && bySlug.page_id !== pageId) throw conflict('This slug is already taken. Please choose another one.');
    if (body.custom_domain) {
      // Only a proved (verified) claim holds a name: an unproved one blocks nobody.
      const holder = repo.verifiedPageOf(body.custom_domain);
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
      repo.disproveDomain(p.page_id, claim, t);
      touch(p.page_id);
      return false;
    }
    const answer = deps.lookupTxt ? await deps.lookupTxt(domainRecordName(claim)) : { ok: false as const, missing: false, error: 'no resolver' };
    const found = answer.ok && answer.records.includes(p.custom_domain_token);
    if (found) repo.proveDomain(p.page_id, claim, t);
    else if (answer.ok || answer.missing) repo.disproveDomain(p.page_id, claim, t);
    else {
      repo.domainChecked(p.page_id, t);
      deps.logger?.warn({ pageId: p.page_id, domain: claim, error: answer.error }, 'custom domain lookup failed');
    }
    touch(p.page_id);
    return found;
  }

  const fields = (b: StatusPageBody) => ({
    slug: b.slug, title: b.title, description: b.description, published: b.published, custom_domain: b.custom_domain, timezone: b.timezone, auto_reports: b.auto_reports,
  });

  function checkAffected(pageId: number, affected: Array<{ component_id: number }> | null) {
    if (!affected) return;
    const ids = new Set(repo.components(pageId).map((c) => c.component_id));
    for (const a of affected) if (!ids.has(a.component_id)) throw badRequest(`Component ${a.component_id} is not on this status page`);
  }

  function reportOf(ownerId: number, pageId: number, reportId: number): StatusReport {
    page(ownerId, pageId);
    const r = repo.report(pageId, reportId);
    if (!r) throw notFound('Report not found');
    return r;
  }

  // ---- auto reports: an alerting incident on a component's endpoint opens and resolves a report ----
  function incidentOpened(i: { incident_id: number; url_id: number; condition: string }): void {
    for (const p of repo.pagesShowingEndpoint(i.url_id)) {
      touch(p.page_id);
      if (p.auto_reports !== 1 || repo.openReportOfIncident(p.page_id, i.incident_id)) continue;
      const ids = repo.componentsOfEndpoint(p.page_id, i.url_id);
      const names = repo.components(p.page_id).filter((c) => ids.includes(c.component_id)).map((c) => c.name);
      const down = i.condition === 'down';
      const impact: ReportImpact = down ? 'major_outage' : 'degraded';
      const what = names.join(', ') || 'A component';
      const id = repo.createReport(p.page_id, {
        title: down ? `${what} is down` : `${what}: degraded performance`,
        status: 'investigating',
        message: down ? `We are investigating an outage of ${what}.` : `We are investigating degraded performance of ${what}.`,
        affected: ids.map((component_id) => ({ component_id, impact })),
        incidentId: i.incident_id,
      }, now());
      deps.events?.reportChanged?.(p, repo.report(p.page_id, id)!, 'opened');
    }
  }
  function incidentResolved(i: { incident_id: number; url_id: number }): void {
    for (const p of repo.pagesShowingEndpoint(i.url_id)) {
      touch(p.page_id);
      const open = repo.openReportOfIncident(p.page_id, i.incident_id);
      if (!open) continue;
      repo.addUpdate(open.report_id, { status: 'resolved', message: 'This incident has been resolved.', affected: null }, now());
      deps.events?.reportChanged?.(p, repo.report(p.page_id, open.report_id)!, 'updated');
    }
  }

  // ---- public view ----
  const cache = new Map<number, { version: string; at: number; view: Promise<PublicView> }>();

  async function render(p: PageRow): Promise<PublicView> {
    const t = now();
    const zone = p.timezone;
    const components = repo.components(p.page_id);
    const urlIds = [...new Set(components.map((c) => c.endpoint_id).filter((id): id is number => id !== null))];
    // The 90 days end with today (page-local); the first starts at local midnight 89 days earlier.
    const today = zonedDate(t, zone);
    const firstDayMs = fromZonedLocal(`${new Date(Date.parse(`${today}T00:00:00Z`) - (STATUS_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)}T00:00`, zone);
    const dates = Array.from({ length: STATUS_DAYS }, (_, i) => new Date(Date.parse(`${today}T00:00:00Z`) - (STATUS_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10));

    const maintenance = deps.maintenance.spansSince(urlIds, firstDayMs, t);
    const daily = deps.uptime && urlIds.length > 0 ? await deps.uptime.dailyUptime(urlIds, firstDayMs, t, zone, maintenance) : new Map<number, Map<string, [number, number]>>();
    const incidents = repo.openIncidents(urlIds);
    const windows = deps.maintenance.windowsForEndpoints(urlIds, t, t + 30 * DAY_MS, t);
    const reports = repo.reportsSince(p.page_id, firstDayMs);
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
    list: (ownerId: number): StatusPage[] => repo.pagesOf(ownerId).map(repo.toPage),
    get: (ownerId: number, pageId: number): StatusPage => repo.toPage(page(ownerId, pageId)),
    slugAvailable: (slug: string): boolean => !repo.bySlug(slug),
    async create(ownerId: number, body: StatusPageBody): Promise<StatusPage> {
      const v = planViolations(await deps.planOf(ownerId), { statusPages: repo.countOf(ownerId) + 1 })[0];
      if (v) throw planRefused(v);
      checkComponents(ownerId, body);
      await checkDomainPolicy(ownerId, body.custom_domain, null);
      checkUnique(body, null);
      const hash = body.password ? await hashPassword(body.password) : null;
      // Checked again after the await: another request may have taken the slug or the last page meanwhile.
      const plan = await deps.planOf(ownerId);
      const again = planViolations(plan, { statusPages: repo.countOf(ownerId) + 1 })[0];
      if (again) throw planRefused(again);
      checkUnique(body, null);
      const id = repo.createPage(ownerId, fields(body), hash, body.components);
      return repo.toPage(page(ownerId, id));
    },
    async update(ownerId: number, pageId: number, body: StatusPageBody): Promise<StatusPage> {
      await checkDomainPolicy(ownerId, body.custom_domain, page(ownerId, pageId).custom_domain_claim);
      checkComponents(ownerId, body);
      checkUnique(body, pageId);
      const existing = new Set(repo.components(pageId).map((c) => c.component_id));
      for (const c of body.components) if (c.component_id !== null && !existing.has(c.component_id)) throw badRequest(`Component ${c.component_id} is not on this status page`);
      const hash = body.password === undefined ? undefined : body.password ? await hashPassword(body.password) : null;
      page(ownerId, pageId);
      checkUnique(body, pageId);
      repo.updatePage(ownerId, pageId, fields(body), hash, body.components);
      touch(pageId);
      return repo.toPage(page(ownerId, pageId));
    },
    /** POST verify-domain: looks the TXT record up now and answers whether it was found. */
    async verifyDomain(ownerId: number, pageId: number): Promise<DomainVerification> {
      const p = page(ownerId, pageId);
      const claim = p.custom_domain_claim;
      if (!claim) throw badRequest(DOMAIN_FIRST);
      await checkDomainPolicy(ownerId, claim, null);
      const found = await settleClaim(p);
      const after = page(ownerId, pageId);
      return {
        found, custom_domain: claim, custom_domain_verified: after.custom_domain !== null && after.custom_domain === after.custom_domain_claim,
        record_name: domainRecordName(claim), record_value: after.custom_domain_token,
      };
    },
    /** The daily check: claims not checked for a day, at most `limit` per call, one lookup at a time. */
    async recheckDomains(limit = 100): Promise<number> {
      const due = repo.claimsDue(now() - DOMAIN_RECHECK_MS, limit);
      for (const p of due) await settleClaim(p);
      return due.length;
    },
    remove(ownerId: number, pageId: number): { id: number } {
      if (!repo.deletePage(ownerId, pageId)) throw notFound('Status page not found');
      touch(pageId);
      return { id: pageId };
    },

    // ---- reports ----
    listReports(ownerId: number, pageId: number): StatusReport[] {
      page(ownerId, pageId);
      return repo.allReports(pageId);
    },
    createReport(ownerId: number, pageId: number, body: StatusReportBody): StatusReport {
      const p = page(ownerId, pageId);
      checkAffected(pageId, body.affected);
      const id = repo.createReport(pageId, body, now());
      touch(pageId);
      const r = repo.report(pageId, id)!;
      deps.events?.reportChanged?.(p, r, 'opened');
      return r;
    },
    editReport(ownerId: number, pageId: number, reportId: number, title: string): StatusReport {
      reportOf(ownerId, pageId, reportId);
      repo.setReportTitle(pageId, reportId, title);
      touch(pageId);
      return repo.report(pageId, reportId)!;
    },
    removeReport(ownerId: number, pageId: number, reportId: number): { report_id: number } {
      reportOf(ownerId, pageId, reportId);
      repo.deleteReport(pageId, reportId);
      touch(pageId);
      return { report_id: reportId };
    },
    addUpdate(ownerId: number, pageId: number, reportId: number, body: StatusUpdateBody): StatusReport {
      const p = page(ownerId, pageId);
      reportOf(ownerId, pageId, reportId);
      checkAffected(pageId, body.affected);
      repo.addUpdate(reportId, body, now());
      touch(pageId);
      const r = repo.report(pageId, reportId)!;
      deps.events?.reportChanged?.(p, r, 'updated');
      return r;
    },
    editUpdate(ownerId: number, pageId: number, reportId: number, updateId: number, message: string): StatusReport {
      reportOf(ownerId, pageId, reportId);
      if (!repo.setUpdateMessage(reportId, updateId, message)) throw notFound('Update not found');
      touch(pageId);
      return repo.report(pageId, reportId)!;
    },
    removeUpdate(ownerId: number, pageId: number, reportId: number, updateId: number): StatusReport {
      const r = reportOf(ownerId, pageId, reportId);
      if (!repo.hasUpdate(reportId, updateId)) throw notFound('Update not found');
      if (r.updates.length === 1) throw badRequest('A report keeps at least one update: delete the report instead');
      repo.deleteUpdate(reportId, updateId, now());
      touch(pageId);
      return repo.report(pageId, reportId)!;
    },

    /** Alerting's incident hooks: auto reports and fresh component states. */
    incidentHooks: { opened: incidentOpened, resolved: incidentResolved },

    // ---- public side ----
    /** A published page by slug or custom domain; unpublished and unknown pages are the same 404. */
    publicPage(by: { slug?: string; host?: string }): PageRow {
      const p = by.slug !== undefined ? repo.bySlug(by.slug.toLowerCase()) : by.host ? repo.byDomain(by.host.toLowerCase()) : undefined;
      if (!p || p.published !== 1) throw notFound('Status page not found');
      return p;
    },
    /** An owned page's row (subscriber lists). */
    ownedRow: page,
    /** A page by slug, published or not (confirm and unsubscribe links keep working); 404 when unknown. */
    subscriptionPage(slug: string): PageRow {
      const p = repo.bySlug(slug.toLowerCase());
      if (!p) throw notFound('Status page not found');
      return p;
    },
    /** The published page whose custom domain is `host`, if any (requests to `/` on that host). */
    customDomainPage(host: string): PageRow | undefined {
      if (!host || host === 'localhost' || /^[\d.]+$|:/.test(host)) return undefined;
      const p = repo.byDomain(host);
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
