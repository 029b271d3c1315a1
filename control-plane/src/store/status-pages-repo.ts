// Status pages, their components and reports, and maintenance windows. Ownership is decided in one
// place per entity: `ownedPage(ownerId, pageId)` and `ownedWindow(ownerId, windowId)` (the owner is a
// user today, a workspace later); every other call is reached only through them.
// Kysely, so the same code runs on SQLite and on Postgres (status-pages-repo.test.ts runs it on both).
import type { MaintenanceState, MaintenanceWindow, ReportImpact, ReportStatus, StatusComponent, StatusPage, StatusReport } from '@upfleet/proto/rest';
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from './sql/schema';

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

export function createStatusPagesRepo(db: Kysely<Schema>) {
  type Q = Kysely<Schema>;
  const n = (r: { numUpdatedRows?: bigint; numDeletedRows?: bigint }) => Number(r.numUpdatedRows ?? r.numDeletedRows ?? 0n);
  const pages = (q: Q = db) => q.selectFrom('status_pages').selectAll();
  const componentRows = (pageId: number, q: Q = db) =>
    q.selectFrom('status_components').selectAll().where('page_id', '=', pageId).orderBy('position').orderBy('component_id').execute();

  const toComponent = (r: Row): StatusComponent => ({
    component_id: r.component_id as number,
    name: r.name as string,
    endpoint_id: (r.url_id as number | null) ?? null,
    group: (r.group_name as string | null) ?? null,
    position: r.position as number,
  });

  const toPage = async (r: PageRow): Promise<StatusPage> => ({
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
    components: (await componentRows(r.page_id)).map((c) => toComponent(c as unknown as Row)),
    created_at: r.created_at,
    updated_at: r.updated_at,
  });

  const toReport = async (r: Row): Promise<StatusReport> => {
    const id = r.report_id as number;
    const [affected, updates] = await Promise.all([
      db.selectFrom('status_report_components').select(['component_id', 'impact']).where('report_id', '=', id).orderBy('component_id').execute(),
      db.selectFrom('status_report_updates').selectAll().where('report_id', '=', id).orderBy('created_at', 'desc').orderBy('update_id', 'desc').execute(),
    ]);
    return {
      report_id: id,
      page_id: r.page_id as number,
      title: r.title as string,
      status: r.status as ReportStatus,
      affected: affected as StatusReport['affected'],
      updates: updates.map((u) => ({ update_id: u.update_id, status: u.status as ReportStatus, message: u.message, created_at: iso(u.created_at)! })),
      created_at: iso(r.created_at as number)!,
      resolved_at: iso((r.resolved_at as number | null) ?? null),
      incident_id: (r.incident_id as number | null) ?? null,
    };
  };

  const windowEndpoints = async (windowId: number): Promise<number[]> =>
    (await db.selectFrom('maintenance_endpoints').select('url_id').where('window_id', '=', windowId).orderBy('url_id').execute()).map((r) => r.url_id);

  const toWindow = async (r: Row, now: number, urlIds?: number[]): Promise<MaintenanceWindow> => ({
    id: r.window_id as number,
    title: r.title as string,
    message: r.message as string,
    endpoint_ids: urlIds ?? (await windowEndpoints(r.window_id as number)),
    starts_at: iso(r.starts_at as number)!,
    ends_at: iso(r.ends_at as number)!,
    state: maintenanceState(r.starts_at as number, r.ends_at as number, now),
  });

  async function saveComponents(q: Q, pageId: number, list: ComponentInput[]): Promise<void> {
    const existing = new Set((await componentRows(pageId, q)).map((r) => r.component_id));
    const kept = new Set<number>();
    for (const [position, c] of list.entries()) {
      if (c.component_id !== null && existing.has(c.component_id)) {
        await q.updateTable('status_components').set({ position, name: c.name, url_id: c.endpoint_id, group_name: c.group })
          .where('component_id', '=', c.component_id).where('page_id', '=', pageId).execute();
        kept.add(c.component_id);
      } else {
        await q.insertInto('status_components').values({ page_id: pageId, position, name: c.name, url_id: c.endpoint_id, group_name: c.group }).execute();
      }
    }
    const gone = [...existing].filter((id) => !kept.has(id));
    if (gone.length > 0) await q.deleteFrom('status_components').where('page_id', '=', pageId).where('component_id', 'in', gone).execute();
  }

  const pageValues = (f: PageFields) => ({
    slug: f.slug, title: f.title, description: f.description, published: f.published ? 1 : 0, timezone: f.timezone, auto_reports: f.auto_reports ? 1 : 0,
  });
  const setAffected = async (q: Q, reportId: number, affected: Array<{ component_id: number; impact: ReportImpact }>) => {
    for (const a of affected) {
      await q.insertInto('status_report_components').values({ report_id: reportId, component_id: a.component_id, impact: a.impact })
        .onConflict((oc) => oc.columns(['report_id', 'component_id']).doUpdateSet({ impact: a.impact })).execute();
    }
  };
  const insertUpdate = async (q: Q, reportId: number, status: ReportStatus, message: string, at: number) =>
    (await q.insertInto('status_report_updates').values({ report_id: reportId, status, message, created_at: at }).returning('update_id').executeTakeFirstOrThrow()).update_id;
  const setReportStatus = (q: Q, reportId: number, status: ReportStatus, at: number) =>
    q.updateTable('status_reports').set({ status, resolved_at: status === 'resolved' ? at : null }).where('report_id', '=', reportId).execute();
  const setWindowEndpoints = async (q: Q, windowId: number, urlIds: number[]) => {
    for (const u of new Set(urlIds)) {
      await q.insertInto('maintenance_endpoints').values({ window_id: windowId, url_id: u }).onConflict((oc) => oc.columns(['window_id', 'url_id']).doNothing()).execute();
    }
  };
  /** [url_id, starts_at, ends_at] of windows ending after `sinceMs` (of these endpoints only, when given). */
  const spans = async (sinceMs: number, urlIds?: number[]): Promise<Array<[number, number, number]>> => {
    if (urlIds?.length === 0) return [];
    let q = db.selectFrom('maintenance_endpoints as me').innerJoin('maintenance_windows as w', 'w.window_id', 'me.window_id')
      .select(['me.url_id', 'w.starts_at', 'w.ends_at']).where('w.ends_at', '>', sinceMs);
    if (urlIds) q = q.where('me.url_id', 'in', urlIds);
    return (await q.execute()).map((r) => [r.url_id, r.starts_at, r.ends_at]);
  };
  /** The endpoints of each window, one query for all of them. */
  const endpointsOfWindows = async (windowIds: number[]): Promise<Map<number, number[]>> => {
    const out = new Map<number, number[]>();
    if (windowIds.length === 0) return out;
    const rows = await db.selectFrom('maintenance_endpoints').select(['window_id', 'url_id']).where('window_id', 'in', windowIds).orderBy('url_id').execute();
    for (const r of rows) out.set(r.window_id, [...(out.get(r.window_id) ?? []), r.url_id]);
    return out;
  };

  return {
    // ---- custom domains: a claim is served once proved (services/status-pages.ts decides) ----
    /** The claim was proved: the page serves it; any other page's hold on the name (verified or claimed)
     *  ends. Only while the page still claims it: a claim changed meanwhile takes nothing from anyone. */
    proveDomain: (pageId: number, name: string, at: number): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const still = await trx.updateTable('status_pages').set({ custom_domain_checked_at: at })
          .where('page_id', '=', pageId).where('custom_domain_claim', '=', name).executeTakeFirst();
        if (n(still) === 0) return;
        await trx.updateTable('status_pages').set({ custom_domain: null }).where('custom_domain', '=', name).where('page_id', '!=', pageId).execute();
        await trx.updateTable('status_pages').set({ custom_domain_claim: null }).where('custom_domain_claim', '=', name).where('page_id', '!=', pageId).execute();
        await trx.updateTable('status_pages').set({ custom_domain: name }).where('page_id', '=', pageId).execute();
      }),
    disproveDomain: async (pageId: number, name: string, at: number): Promise<void> => {
      await db.updateTable('status_pages').set({ custom_domain: null, custom_domain_checked_at: at }).where('page_id', '=', pageId).where('custom_domain_claim', '=', name).execute();
    },
    domainChecked: async (pageId: number, at: number): Promise<void> => {
      await db.updateTable('status_pages').set({ custom_domain_checked_at: at }).where('page_id', '=', pageId).execute();
    },
    /** Claims last checked at or before `before` (never checked first), at most `limit`. */
    claimsDue: async (before: number, limit: number): Promise<PageRow[]> =>
      (await pages().where('custom_domain_claim', 'is not', null)
        .where((eb) => eb.or([eb('custom_domain_checked_at', 'is', null), eb('custom_domain_checked_at', '<=', before)]))
        // never checked first (NULLS FIRST spelled the same on both databases)
        .orderBy((eb) => eb.case().when('custom_domain_checked_at', 'is', null).then(0).else(1).end())
        .orderBy('custom_domain_checked_at').orderBy('page_id').limit(limit).execute()),
    /** The page serving `name`, if any. */
    verifiedPageOf: async (name: string): Promise<number | undefined> =>
      (await db.selectFrom('status_pages').select('page_id').where('custom_domain', '=', name).executeTakeFirst())?.page_id,
    toPage,
    toReport,
    toWindow,
    // ---- pages: every owner-side call starts from ownedPage ----
    ownedPage: async (ownerId: number, pageId: number): Promise<PageRow | undefined> =>
      (await pages().where('page_id', '=', pageId).where('user_id', '=', ownerId).executeTakeFirst()),
    pagesOf: async (ownerId: number): Promise<PageRow[]> => (await pages().where('user_id', '=', ownerId).orderBy('page_id').execute()),
    countOf: async (ownerId: number): Promise<number> =>
      Number((await db.selectFrom('status_pages').select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', ownerId).executeTakeFirstOrThrow()).n),
    ownsEndpoint: async (ownerId: number, urlId: number): Promise<boolean> =>
      (await db.selectFrom('endpoints').select('url_id').where('url_id', '=', urlId).where('user_id', '=', ownerId).executeTakeFirst()) !== undefined,
    bySlug: async (slug: string): Promise<PageRow | undefined> => (await pages().where('slug', '=', slug).executeTakeFirst()),
    byDomain: async (host: string): Promise<PageRow | undefined> => (await pages().where('custom_domain', '=', host).executeTakeFirst()),
    /** A new page's id; the slug's UNIQUE decides between two creates at once (the loser's error propagates). */
    createPage: (ownerId: number, f: PageFields, passwordHash: string | null, components: ComponentInput[]): Promise<number> =>
      db.transaction().execute(async (trx) => {
        const { page_id: id } = await trx.insertInto('status_pages')
          .values({
            user_id: ownerId, ...pageValues(f), password_hash: passwordHash, custom_domain: null, custom_domain_claim: f.custom_domain,
            custom_domain_token: crypto.randomBytes(16).toString('hex'), custom_domain_checked_at: null,
          })
          .returning('page_id').executeTakeFirstOrThrow();
        await saveComponents(trx, id, components);
        return id;
      }),
    updatePage: (ownerId: number, pageId: number, f: PageFields, passwordHash: string | null | undefined, components: ComponentInput[]): Promise<void> =>
      db.transaction().execute(async (trx) => {
        // A new claim is unproved: the verified name stays only while the claim is the same.
        await trx.updateTable('status_pages')
          .set((eb) => ({
            ...pageValues(f),
            custom_domain: f.custom_domain === null ? null : eb.case().when('custom_domain', '=', f.custom_domain).then(eb.ref('custom_domain')).else(null).end(),
            custom_domain_claim: f.custom_domain,
            updated_at: new Date().toISOString(),
            ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}),
          }))
          .where('page_id', '=', pageId).where('user_id', '=', ownerId).execute();
        await saveComponents(trx, pageId, components);
      }),
    deletePage: async (ownerId: number, pageId: number): Promise<boolean> =>
      n(await db.deleteFrom('status_pages').where('page_id', '=', pageId).where('user_id', '=', ownerId).executeTakeFirst()) > 0,
    components: async (pageId: number): Promise<StatusComponent[]> => (await componentRows(pageId)).map((c) => toComponent(c as unknown as Row)),
    pagesShowingEndpoint: async (urlId: number): Promise<PageRow[]> =>
      (await pages().where('page_id', 'in', (eb) => eb.selectFrom('status_components').select('page_id').where('url_id', '=', urlId)).orderBy('page_id').execute()),
    componentsOfEndpoint: async (pageId: number, urlId: number): Promise<number[]> =>
      (await db.selectFrom('status_components').select('component_id').where('page_id', '=', pageId).where('url_id', '=', urlId).execute()).map((r) => r.component_id),

    // ---- reports of a page the caller already owns ----
    /** Open reports and those resolved since `sinceMs`, newest first. */
    reportsSince: async (pageId: number, sinceMs: number): Promise<StatusReport[]> =>
      Promise.all((await db.selectFrom('status_reports').selectAll().where('page_id', '=', pageId)
        .where((eb) => eb.or([eb('resolved_at', 'is', null), eb('resolved_at', '>=', sinceMs)]))
        .orderBy('created_at', 'desc').orderBy('report_id', 'desc').execute()).map((r) => toReport(r as unknown as Row))),
    allReports: async (pageId: number): Promise<StatusReport[]> =>
      Promise.all((await db.selectFrom('status_reports').selectAll().where('page_id', '=', pageId)
        .orderBy('created_at', 'desc').orderBy('report_id', 'desc').limit(500).execute()).map((r) => toReport(r as unknown as Row))),
    report: async (pageId: number, reportId: number): Promise<StatusReport | undefined> => {
      const r = await db.selectFrom('status_reports').selectAll().where('report_id', '=', reportId).where('page_id', '=', pageId).executeTakeFirst();
      return r && toReport(r);
    },
    openReportOfIncident: async (pageId: number, incidentId: number): Promise<StatusReport | undefined> => {
      const r = await db.selectFrom('status_reports').selectAll().where('page_id', '=', pageId).where('incident_id', '=', incidentId).where('resolved_at', 'is', null).executeTakeFirst();
      return r && toReport(r);
    },
    createReport: (pageId: number, r: { title: string; status: ReportStatus; message: string; affected: Array<{ component_id: number; impact: ReportImpact }>; incidentId?: number | null }, at: number): Promise<number> =>
      db.transaction().execute(async (trx) => {
        const { report_id: id } = await trx.insertInto('status_reports')
          .values({ page_id: pageId, title: r.title, status: r.status, incident_id: r.incidentId ?? null, created_at: at, resolved_at: r.status === 'resolved' ? at : null })
          .returning('report_id').executeTakeFirstOrThrow();
        await setAffected(trx, id, r.affected);
        await insertUpdate(trx, id, r.status, r.message, at);
        return id;
      }),
    addUpdate: (reportId: number, u: { status: ReportStatus; message: string; affected: Array<{ component_id: number; impact: ReportImpact }> | null }, at: number): Promise<number> =>
      db.transaction().execute(async (trx) => {
        const id = await insertUpdate(trx, reportId, u.status, u.message, at);
        await setReportStatus(trx, reportId, u.status, at);
        if (u.affected) {
          await trx.deleteFrom('status_report_components').where('report_id', '=', reportId).execute();
          await setAffected(trx, reportId, u.affected);
        }
        return id;
      }),
    setReportTitle: async (pageId: number, reportId: number, title: string): Promise<boolean> =>
      n(await db.updateTable('status_reports').set({ title }).where('report_id', '=', reportId).where('page_id', '=', pageId).executeTakeFirst()) > 0,
    deleteReport: async (pageId: number, reportId: number): Promise<boolean> =>
      n(await db.deleteFrom('status_reports').where('report_id', '=', reportId).where('page_id', '=', pageId).executeTakeFirst()) > 0,
    hasUpdate: async (reportId: number, updateId: number): Promise<boolean> =>
      (await db.selectFrom('status_report_updates').select('update_id').where('update_id', '=', updateId).where('report_id', '=', reportId).executeTakeFirst()) !== undefined,
    setUpdateMessage: async (reportId: number, updateId: number, message: string): Promise<boolean> =>
      n(await db.updateTable('status_report_updates').set({ message }).where('update_id', '=', updateId).where('report_id', '=', reportId).executeTakeFirst()) > 0,
    /** Deletes an update; the report's status follows its newest remaining update. */
    deleteUpdate: (reportId: number, updateId: number, at: number): Promise<boolean> =>
      db.transaction().execute(async (trx) => {
        if (n(await trx.deleteFrom('status_report_updates').where('update_id', '=', updateId).where('report_id', '=', reportId).executeTakeFirst()) === 0) return false;
        const latest = await trx.selectFrom('status_report_updates').select('status').where('report_id', '=', reportId)
          .orderBy('created_at', 'desc').orderBy('update_id', 'desc').limit(1).executeTakeFirst();
        if (latest) await setReportStatus(trx, reportId, latest.status as ReportStatus, at);
        return true;
      }),

    // ---- maintenance windows: every owner-side call starts from ownedWindow ----
    windowsOf: async (ownerId: number, now: number): Promise<MaintenanceWindow[]> => {
      const rows = await db.selectFrom('maintenance_windows').selectAll().where('user_id', '=', ownerId).orderBy('starts_at', 'desc').orderBy('window_id', 'desc').execute();
      const urls = await endpointsOfWindows(rows.map((r) => r.window_id));
      return Promise.all(rows.map((r) => toWindow(r as unknown as Row, now, urls.get(r.window_id) ?? [])));
    },
    ownedWindow: async (ownerId: number, windowId: number, now: number): Promise<MaintenanceWindow | undefined> => {
      const r = await db.selectFrom('maintenance_windows').selectAll().where('window_id', '=', windowId).where('user_id', '=', ownerId).executeTakeFirst();
      return r && toWindow(r, now);
    },
    createWindow: (ownerId: number, w: { title: string; message: string; endpoint_ids: number[]; starts_at: number; ends_at: number }, now: number): Promise<number> =>
      db.transaction().execute(async (trx) => {
        const { window_id: id } = await trx.insertInto('maintenance_windows')
          .values({ user_id: ownerId, title: w.title, message: w.message, starts_at: w.starts_at, ends_at: w.ends_at, created_at: now })
          .returning('window_id').executeTakeFirstOrThrow();
        await setWindowEndpoints(trx, id, w.endpoint_ids);
        return id;
      }),
    updateWindow: (ownerId: number, windowId: number, w: { title: string; message: string; endpoint_ids: number[]; starts_at: number; ends_at: number }): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const changed = await trx.updateTable('maintenance_windows').set({ title: w.title, message: w.message, starts_at: w.starts_at, ends_at: w.ends_at })
          .where('window_id', '=', windowId).where('user_id', '=', ownerId).executeTakeFirst();
        if (n(changed) === 0) return; // not the owner's: its endpoints stay as they are
        await trx.deleteFrom('maintenance_endpoints').where('window_id', '=', windowId).execute();
        await setWindowEndpoints(trx, windowId, w.endpoint_ids);
      }),
    deleteWindow: async (ownerId: number, windowId: number): Promise<boolean> =>
      n(await db.deleteFrom('maintenance_windows').where('window_id', '=', windowId).where('user_id', '=', ownerId).executeTakeFirst()) > 0,
    /** [url_id, starts_at, ends_at] of every window ending after `sinceMs`. */
    windowSpans: (sinceMs: number) => spans(sinceMs),
    /** [url_id, starts_at, ends_at] of these endpoints' windows ending after `sinceMs`. */
    spansFor: (urlIds: number[], sinceMs: number) => spans(sinceMs, urlIds),
    /** Windows ending after `sinceMs` that cover an endpoint: [window_id, url_ids, starts_at, ends_at, title, message]. */
    recentWindows: async (sinceMs: number) => {
      const rows = await db.selectFrom('maintenance_windows').select(['window_id', 'starts_at', 'ends_at', 'title', 'message']).where('ends_at', '>', sinceMs).orderBy('window_id').execute();
      const urls = await endpointsOfWindows(rows.map((r) => r.window_id));
      return rows.filter((r) => urls.has(r.window_id))
        .map((r) => [r.window_id, urls.get(r.window_id)!, r.starts_at, r.ends_at, r.title, r.message] as const);
    },
    /** Open alerting incidents of these endpoints (read-only: alerting owns the table). */
    openIncidents: async (urlIds: number[]): Promise<Array<{ incident_id: number; url_id: number; condition: string; opened_at: number }>> =>
      urlIds.length === 0 ? [] : db.selectFrom('incidents').select(['incident_id', 'url_id', 'condition', 'opened_at']).where('url_id', 'in', urlIds).where('resolved_at', 'is', null).execute(),
    /** Windows touching any of the endpoints that end after `fromMs` and start before `untilMs`. */
    windowsForEndpoints: async (urlIds: number[], fromMs: number, untilMs: number, now: number): Promise<MaintenanceWindow[]> => {
      if (urlIds.length === 0) return [];
      const rows = await db.selectFrom('maintenance_windows').selectAll()
        .where('window_id', 'in', (eb) => eb.selectFrom('maintenance_endpoints').select('window_id').where('url_id', 'in', urlIds))
        .where('ends_at', '>', fromMs).where('starts_at', '<', untilMs)
        .orderBy('starts_at').orderBy('window_id').execute();
      // Each window lists the asked endpoints it covers (not its others).
      const asked = new Set(urlIds);
      const urls = await endpointsOfWindows(rows.map((r) => r.window_id));
      return Promise.all(rows.map((r) => toWindow(r as unknown as Row, now, (urls.get(r.window_id) ?? []).filter((u) => asked.has(u)))));
    },
  };
}
export type StatusPagesRepo = ReturnType<typeof createStatusPagesRepo>;
