// Status pages, their components and reports, and maintenance windows. Ownership is decided in one
// place per entity: `ownedPage(ownerId, pageId)` and `ownedWindow(ownerId, windowId)` (the owner is a
// user today, a workspace later); every other call is reached only through them.
import type { MaintenanceState, MaintenanceWindow, ReportImpact, ReportStatus, StatusComponent, StatusPage, StatusReport } from '@upfleet/proto/rest';
import type { Db } from './db';

type Row = Record<string, unknown>;

export interface PageRow {
  page_id: number;
  user_id: number;
  slug: string;
  title: string;
  description: string;
  published: number;
  password_hash: string | null;
  /** The verified name the page serves (UNIQUE); null until `custom_domain_claim` is proved. */
  custom_domain: string | null;
  /** The name the owner asked for. */
  custom_domain_claim: string | null;
  /** The value of the TXT record `_upfleet-challenge.{claim}` that proves the claim. */
  custom_domain_token: string;
  custom_domain_checked_at: number | null;
  timezone: string;
  auto_reports: number;
  created_at: string;
  updated_at: string;
}

export interface PageFields {
  slug: string;
  title: string;
  description: string;
  published: boolean;
  custom_domain: string | null;
  timezone: string;
  auto_reports: boolean;
}

export interface ComponentInput {
  component_id: number | null;
  name: string;
  endpoint_id: number | null;
  group: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function maintenanceState(startsAt: number, endsAt: number, now: number): MaintenanceState {
  return now < startsAt ? 'scheduled' : now < endsAt ? 'in_progress' : 'completed';
}

export function createStatusPagesRepo(db: Db) {
  const q = {
    ownedPage: db.prepare('SELECT * FROM status_pages WHERE page_id = ? AND user_id = ?'),
    pagesOf: db.prepare('SELECT * FROM status_pages WHERE user_id = ? ORDER BY page_id'),
    countOf: db.prepare('SELECT COUNT(*) FROM status_pages WHERE user_id = ?').pluck(),
    bySlug: db.prepare('SELECT * FROM status_pages WHERE slug = ?'),
    byDomain: db.prepare('SELECT * FROM status_pages WHERE custom_domain = ?'),
    insertPage: db.prepare(`INSERT INTO status_pages (user_id, slug, title, description, published, password_hash, custom_domain_claim, custom_domain_token, timezone, auto_reports)
      VALUES (@user_id, @slug, @title, @description, @published, @password_hash, @custom_domain, lower(hex(randomblob(16))), @timezone, @auto_reports)`),
    // A new claim is unproved: the verified name stays only while the claim is the same.
    updatePage: db.prepare(`UPDATE status_pages SET slug = @slug, title = @title, description = @description, published = @published,
      custom_domain = CASE WHEN custom_domain = @custom_domain THEN custom_domain ELSE NULL END, custom_domain_claim = @custom_domain,
      timezone = @timezone, auto_reports = @auto_reports,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE page_id = @page_id AND user_id = @user_id`),
    setPassword: db.prepare('UPDATE status_pages SET password_hash = ? WHERE page_id = ?'),
    deletePage: db.prepare('DELETE FROM status_pages WHERE page_id = ? AND user_id = ?'),
    components: db.prepare('SELECT * FROM status_components WHERE page_id = ? ORDER BY position, component_id'),
    insertComponent: db.prepare('INSERT INTO status_components (page_id, position, name, url_id, group_name) VALUES (?, ?, ?, ?, ?)'),
    updateComponent: db.prepare('UPDATE status_components SET position = ?, name = ?, url_id = ?, group_name = ? WHERE component_id = ? AND page_id = ?'),
    deleteComponent: db.prepare('DELETE FROM status_components WHERE component_id = ? AND page_id = ?'),
    ownsEndpoint: db.prepare('SELECT 1 FROM endpoints WHERE url_id = ? AND user_id = ?').pluck(),
    pagesShowingEndpoint: db.prepare(`SELECT DISTINCT p.* FROM status_pages p JOIN status_components c ON c.page_id = p.page_id WHERE c.url_id = ?`),
    componentsOfEndpoint: db.prepare('SELECT component_id FROM status_components WHERE page_id = ? AND url_id = ?').pluck(),

    reports: db.prepare('SELECT * FROM status_reports WHERE page_id = ? AND (resolved_at IS NULL OR resolved_at >= ?) ORDER BY created_at DESC, report_id DESC'),
    allReports: db.prepare('SELECT * FROM status_reports WHERE page_id = ? ORDER BY created_at DESC, report_id DESC LIMIT 500'),
    report: db.prepare('SELECT * FROM status_reports WHERE report_id = ? AND page_id = ?'),
    openReportOfIncident: db.prepare('SELECT * FROM status_reports WHERE page_id = ? AND incident_id = ? AND resolved_at IS NULL'),
    insertReport: db.prepare('INSERT INTO status_reports (page_id, title, status, incident_id, created_at, resolved_at) VALUES (?, ?, ?, ?, ?, ?)'),
    setReportStatus: db.prepare('UPDATE status_reports SET status = ?, resolved_at = ? WHERE report_id = ?'),
    setReportTitle: db.prepare('UPDATE status_reports SET title = ? WHERE report_id = ? AND page_id = ?'),
    deleteReport: db.prepare('DELETE FROM status_reports WHERE report_id = ? AND page_id = ?'),
    affected: db.prepare('SELECT component_id, impact FROM status_report_components WHERE report_id = ? ORDER BY component_id'),
    clearAffected: db.prepare('DELETE FROM status_report_components WHERE report_id = ?'),
    insertAffected: db.prepare('INSERT OR REPLACE INTO status_report_components (report_id, component_id, impact) VALUES (?, ?, ?)'),
    updates: db.prepare('SELECT * FROM status_report_updates WHERE report_id = ? ORDER BY created_at DESC, update_id DESC'),
    update: db.prepare('SELECT * FROM status_report_updates WHERE update_id = ? AND report_id = ?'),
    insertUpdate: db.prepare('INSERT INTO status_report_updates (report_id, status, message, created_at) VALUES (?, ?, ?, ?)'),
    setUpdateMessage: db.prepare('UPDATE status_report_updates SET message = ? WHERE update_id = ? AND report_id = ?'),
    deleteUpdate: db.prepare('DELETE FROM status_report_updates WHERE update_id = ? AND report_id = ?'),
    latestUpdate: db.prepare('SELECT status FROM status_report_updates WHERE report_id = ? ORDER BY created_at DESC, update_id DESC LIMIT 1').pluck(),

    windowsOf: db.prepare('SELECT * FROM maintenance_windows WHERE user_id = ? ORDER BY starts_at DESC, window_id DESC'),
    ownedWindow: db.prepare('SELECT * FROM maintenance_windows WHERE window_id = ? AND user_id = ?'),
    insertWindow: db.prepare('INSERT INTO maintenance_windows (user_id, title, message, starts_at, ends_at, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    updateWindow: db.prepare('UPDATE maintenance_windows SET title = ?, message = ?, starts_at = ?, ends_at = ? WHERE window_id = ? AND user_id = ?'),
    deleteWindow: db.prepare('DELETE FROM maintenance_windows WHERE window_id = ? AND user_id = ?'),
    windowEndpoints: db.prepare('SELECT url_id FROM maintenance_endpoints WHERE window_id = ? ORDER BY url_id').pluck(),
    clearWindowEndpoints: db.prepare('DELETE FROM maintenance_endpoints WHERE window_id = ?'),
    insertWindowEndpoint: db.prepare('INSERT OR IGNORE INTO maintenance_endpoints (window_id, url_id) VALUES (?, ?)'),
    windowSpans: db.prepare(`SELECT me.url_id, w.starts_at, w.ends_at FROM maintenance_windows w
      JOIN maintenance_endpoints me ON me.window_id = w.window_id WHERE w.ends_at > ?`).raw(true),
    spansFor: db.prepare(`SELECT me.url_id, w.starts_at, w.ends_at FROM maintenance_endpoints me
      JOIN maintenance_windows w ON w.window_id = me.window_id WHERE me.url_id IN (SELECT value FROM json_each(?)) AND w.ends_at > ?`).raw(true),
    recentWindows: db.prepare(`SELECT w.window_id, json_group_array(me.url_id) AS url_ids, w.starts_at, w.ends_at, w.title, w.message
      FROM maintenance_windows w JOIN maintenance_endpoints me ON me.window_id = w.window_id WHERE w.ends_at > ? GROUP BY w.window_id`).raw(true),
    openIncidents: db.prepare(`SELECT incident_id, url_id, condition, opened_at FROM incidents
      WHERE url_id IN (SELECT value FROM json_each(?)) AND resolved_at IS NULL`),
    windowsForEndpoints: db.prepare(`SELECT w.*, json_group_array(me.url_id) AS url_ids FROM maintenance_windows w
      JOIN maintenance_endpoints me ON me.window_id = w.window_id
      WHERE me.url_id IN (SELECT value FROM json_each(?)) AND w.ends_at > ? AND w.starts_at < ?
      GROUP BY w.window_id ORDER BY w.starts_at, w.window_id`),
  };

  const toComponent = (r: Row): StatusComponent => ({
    component_id: r.component_id as number,
    name: r.name as string,
    endpoint_id: (r.url_id as number | null) ?? null,
    group: (r.group_name as string | null) ?? null,
    position: r.position as number,
  });

  const toPage = (r: PageRow): StatusPage => ({
    id: r.page_id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    published: r.published === 1,
    has_password: r.password_hash !== null,
    custom_domain: r.custom_domain_claim,
    custom_domain_verified: r.custom_domain !== null && r.custom_domain === r.custom_domain_claim,
    custom_domain_token: r.custom_domain_token,
    timezone: r.timezone,
    auto_reports: r.auto_reports === 1,
    components: (q.components.all(r.page_id) as Row[]).map(toComponent),
    created_at: r.created_at,
    updated_at: r.updated_at,
  });

  const toReport = (r: Row): StatusReport => ({
    report_id: r.report_id as number,
    page_id: r.page_id as number,
    title: r.title as string,
    status: r.status as ReportStatus,
    affected: q.affected.all(r.report_id) as StatusReport['affected'],
    updates: (q.updates.all(r.report_id) as Row[]).map((u) => ({
      update_id: u.update_id as number,
      status: u.status as ReportStatus,
      message: u.message as string,
      created_at: iso(u.created_at as number)!,
    })),
    created_at: iso(r.created_at as number)!,
    resolved_at: iso((r.resolved_at as number | null) ?? null),
    incident_id: (r.incident_id as number | null) ?? null,
  });

  const toWindow = (r: Row, now: number, urlIds?: number[]): MaintenanceWindow => ({
    id: r.window_id as number,
    title: r.title as string,
    message: r.message as string,
    endpoint_ids: urlIds ?? (q.windowEndpoints.all(r.window_id) as number[]),
    starts_at: iso(r.starts_at as number)!,
    ends_at: iso(r.ends_at as number)!,
    state: maintenanceState(r.starts_at as number, r.ends_at as number, now),
  });

  function saveComponents(pageId: number, list: ComponentInput[]): void {
    const existing = new Set((q.components.all(pageId) as Row[]).map((r) => r.component_id as number));
    const kept = new Set<number>();
    list.forEach((c, position) => {
      if (c.component_id !== null && existing.has(c.component_id)) {
        q.updateComponent.run(position, c.name, c.endpoint_id, c.group, c.component_id, pageId);
        kept.add(c.component_id);
      } else {
        q.insertComponent.run(pageId, position, c.name, c.endpoint_id, c.group);
      }
    });
    for (const id of existing) if (!kept.has(id)) q.deleteComponent.run(id, pageId);
  }

  const pageParams = (userId: number, f: PageFields) => ({
    user_id: userId, slug: f.slug, title: f.title, description: f.description, published: f.published ? 1 : 0,
    custom_domain: f.custom_domain, timezone: f.timezone, auto_reports: f.auto_reports ? 1 : 0,
  });
  const domainQ = {
    dropOthers: db.prepare('UPDATE status_pages SET custom_domain = NULL WHERE custom_domain = ? AND page_id != ?'),
    dropOtherClaims: db.prepare('UPDATE status_pages SET custom_domain_claim = NULL WHERE custom_domain_claim = ? AND page_id != ?'),
    prove: db.prepare('UPDATE status_pages SET custom_domain = custom_domain_claim, custom_domain_checked_at = ? WHERE page_id = ? AND custom_domain_claim = ?'),
    disprove: db.prepare('UPDATE status_pages SET custom_domain = NULL, custom_domain_checked_at = ? WHERE page_id = ? AND custom_domain_claim = ?'),
    checked: db.prepare('UPDATE status_pages SET custom_domain_checked_at = ? WHERE page_id = ?'),
    due: db.prepare(`SELECT * FROM status_pages WHERE custom_domain_claim IS NOT NULL AND (custom_domain_checked_at IS NULL OR custom_domain_checked_at <= ?)
      ORDER BY custom_domain_checked_at IS NOT NULL, custom_domain_checked_at, page_id LIMIT ?`),
    verifiedBy: db.prepare('SELECT page_id FROM status_pages WHERE custom_domain = ?').pluck(),
  };
  /** The claim was proved: the page serves it; any other page's hold on the name (verified or claimed) ends. */
  const proveDomain = db.transaction((pageId: number, name: string, at: number) => {
    domainQ.dropOthers.run(name, pageId);
    domainQ.dropOtherClaims.run(name, pageId);
    domainQ.prove.run(at, pageId, name);
  });

  return {
    // ---- custom domains: a claim is served once proved (services/status-pages.ts decides) ----
    proveDomain: (pageId: number, name: string, at: number) => proveDomain(pageId, name, at),
    disproveDomain: (pageId: number, name: string, at: number) => domainQ.disprove.run(at, pageId, name),
    domainChecked: (pageId: number, at: number) => domainQ.checked.run(at, pageId),
    /** Claims last checked at or before `before` (never checked first), at most `limit`. */
    claimsDue: (before: number, limit: number) => domainQ.due.all(before, limit) as PageRow[],
    /** The page serving `name`, if any. */
    verifiedPageOf: (name: string) => domainQ.verifiedBy.get(name) as number | undefined,
    toPage,
    toReport,
    toWindow,
    // ---- pages: every owner-side call starts from ownedPage ----
    ownedPage: (ownerId: number, pageId: number) => q.ownedPage.get(pageId, ownerId) as PageRow | undefined,
    pagesOf: (ownerId: number) => q.pagesOf.all(ownerId) as PageRow[],
    countOf: (ownerId: number) => q.countOf.get(ownerId) as number,
    ownsEndpoint: (ownerId: number, urlId: number) => q.ownsEndpoint.get(urlId, ownerId) === 1,
    bySlug: (slug: string) => q.bySlug.get(slug) as PageRow | undefined,
    byDomain: (host: string) => q.byDomain.get(host) as PageRow | undefined,
    createPage: db.transaction((ownerId: number, f: PageFields, passwordHash: string | null, components: ComponentInput[]): number => {
      const id = Number(q.insertPage.run({ ...pageParams(ownerId, f), password_hash: passwordHash }).lastInsertRowid);
      saveComponents(id, components);
      return id;
    }),
    updatePage: db.transaction((ownerId: number, pageId: number, f: PageFields, passwordHash: string | null | undefined, components: ComponentInput[]) => {
      q.updatePage.run({ ...pageParams(ownerId, f), page_id: pageId });
      if (passwordHash !== undefined) q.setPassword.run(passwordHash, pageId);
      saveComponents(pageId, components);
    }),
    deletePage: (ownerId: number, pageId: number) => q.deletePage.run(pageId, ownerId).changes > 0,
    components: (pageId: number) => (q.components.all(pageId) as Row[]).map(toComponent),
    pagesShowingEndpoint: (urlId: number) => q.pagesShowingEndpoint.all(urlId) as PageRow[],
    componentsOfEndpoint: (pageId: number, urlId: number) => q.componentsOfEndpoint.all(pageId, urlId) as number[],

    // ---- reports of a page the caller already owns ----
    /** Open reports and those resolved since `sinceMs`, newest first. */
    reportsSince: (pageId: number, sinceMs: number) => (q.reports.all(pageId, sinceMs) as Row[]).map(toReport),
    allReports: (pageId: number) => (q.allReports.all(pageId) as Row[]).map(toReport),
    report: (pageId: number, reportId: number) => {
      const r = q.report.get(reportId, pageId) as Row | undefined;
      return r && toReport(r);
    },
    openReportOfIncident: (pageId: number, incidentId: number) => {
      const r = q.openReportOfIncident.get(pageId, incidentId) as Row | undefined;
      return r && toReport(r);
    },
    createReport: db.transaction((pageId: number, r: { title: string; status: ReportStatus; message: string; affected: Array<{ component_id: number; impact: ReportImpact }>; incidentId?: number | null }, at: number): number => {
      const id = Number(q.insertReport.run(pageId, r.title, r.status, r.incidentId ?? null, at, r.status === 'resolved' ? at : null).lastInsertRowid);
      for (const a of r.affected) q.insertAffected.run(id, a.component_id, a.impact);
      q.insertUpdate.run(id, r.status, r.message, at);
      return id;
    }),
    addUpdate: db.transaction((reportId: number, u: { status: ReportStatus; message: string; affected: Array<{ component_id: number; impact: ReportImpact }> | null }, at: number): number => {
      const id = Number(q.insertUpdate.run(reportId, u.status, u.message, at).lastInsertRowid);
      q.setReportStatus.run(u.status, u.status === 'resolved' ? at : null, reportId);
      if (u.affected) {
        q.clearAffected.run(reportId);
        for (const a of u.affected) q.insertAffected.run(reportId, a.component_id, a.impact);
      }
      return id;
    }),
    setReportTitle: (pageId: number, reportId: number, title: string) => q.setReportTitle.run(title, reportId, pageId).changes > 0,
    deleteReport: (pageId: number, reportId: number) => q.deleteReport.run(reportId, pageId).changes > 0,
    hasUpdate: (reportId: number, updateId: number) => q.update.get(updateId, reportId) !== undefined,
    setUpdateMessage: (reportId: number, updateId: number, message: string) => q.setUpdateMessage.run(message, updateId, reportId).changes > 0,
    /** Deletes an update; the report's status follows its newest remaining update. */
    deleteUpdate: db.transaction((reportId: number, updateId: number, at: number): boolean => {
      if (q.deleteUpdate.run(updateId, reportId).changes === 0) return false;
      const status = q.latestUpdate.get(reportId) as ReportStatus | undefined;
      if (status) q.setReportStatus.run(status, status === 'resolved' ? at : null, reportId);
      return true;
    }),

    // ---- maintenance windows: every owner-side call starts from ownedWindow ----
    windowsOf: (ownerId: number, now: number) => (q.windowsOf.all(ownerId) as Row[]).map((r) => toWindow(r, now)),
    ownedWindow: (ownerId: number, windowId: number, now: number) => {
      const r = q.ownedWindow.get(windowId, ownerId) as Row | undefined;
      return r && toWindow(r, now);
    },
    createWindow: db.transaction((ownerId: number, w: { title: string; message: string; endpoint_ids: number[]; starts_at: number; ends_at: number }, now: number): number => {
      const id = Number(q.insertWindow.run(ownerId, w.title, w.message, w.starts_at, w.ends_at, now).lastInsertRowid);
      for (const u of w.endpoint_ids) q.insertWindowEndpoint.run(id, u);
      return id;
    }),
    updateWindow: db.transaction((ownerId: number, windowId: number, w: { title: string; message: string; endpoint_ids: number[]; starts_at: number; ends_at: number }) => {
      q.updateWindow.run(w.title, w.message, w.starts_at, w.ends_at, windowId, ownerId);
      q.clearWindowEndpoints.run(windowId);
      for (const u of w.endpoint_ids) q.insertWindowEndpoint.run(windowId, u);
    }),
    deleteWindow: (ownerId: number, windowId: number) => q.deleteWindow.run(windowId, ownerId).changes > 0,
    /** [url_id, starts_at, ends_at] of every window ending after `sinceMs`. */
    windowSpans: (sinceMs: number) => q.windowSpans.all(sinceMs) as Array<[number, number, number]>,
    /** [url_id, starts_at, ends_at] of these endpoints' windows ending after `sinceMs`. */
    spansFor: (urlIds: number[], sinceMs: number) => q.spansFor.all(JSON.stringify(urlIds), sinceMs) as Array<[number, number, number]>,
    /** Windows ending after `sinceMs`: [window_id, url_ids, starts_at, ends_at, title, message]. */
    recentWindows: (sinceMs: number) =>
      (q.recentWindows.all(sinceMs) as Array<[number, string, number, number, string, string]>).map(
        ([id, urls, s, e, title, message]) => [id, JSON.parse(urls) as number[], s, e, title, message] as const,
      ),
    /** Open alerting incidents of these endpoints (read-only: alerting owns the table). */
    openIncidents: (urlIds: number[]) => q.openIncidents.all(JSON.stringify(urlIds)) as Array<{ incident_id: number; url_id: number; condition: string; opened_at: number }>,
    /** Windows touching any of the endpoints that end after `fromMs` and start before `untilMs`. */
    windowsForEndpoints: (urlIds: number[], fromMs: number, untilMs: number, now: number) =>
      (q.windowsForEndpoints.all(JSON.stringify(urlIds), fromMs, untilMs) as Row[]).map((r) => toWindow(r, now, JSON.parse(r.url_ids as string) as number[])),
  };
}
export type StatusPagesRepo = ReturnType<typeof createStatusPagesRepo>;
