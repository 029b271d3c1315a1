// Status pages, their components and reports, and maintenance windows on both databases (SQLite and Postgres).
import { sql as raw } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import type { Sql } from './sql/open';
import { createStatusPagesRepo, type PageFields } from './status-pages-repo';

const fields = (slug: string, over: Partial<PageFields> = {}): PageFields => ({
  slug, title: `Title ${slug}`, description: '', published: true, custom_domain: null, timezone: 'UTC', auto_reports: true, ...over,
});
async function endpointOf(s: Sql, userId: number, name: string): Promise<number> {
  const r = await raw<{ url_id: number }>`INSERT INTO endpoints (guid, user_id, name, url) VALUES (${`g-${name}-${userId}`}, ${userId}, ${name}, ${'https://example.com/'}) RETURNING url_id`.execute(s.db);
  return Number(r.rows[0].url_id);
}

describe.each(SQL_DIALECTS)('status pages repo on $title', (d) => {
  const sql = freshSql(d);

  it('creates a page with its components, scoped to its owner; a taken slug is refused by the database', async () => {
    const repo = createStatusPagesRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    const api = await endpointOf(sql(), ann, 'api');
    const id = await repo.createPage(ann, fields('acme', { published: false }), 'hash', [
      { component_id: null, name: 'API', endpoint_id: api, group: 'Core' },
      { component_id: null, name: 'Docs', endpoint_id: null, group: null },
    ]);
    const row = (await repo.ownedPage(ann, id))!;
    expect(row).toMatchObject({ slug: 'acme', published: 0, password_hash: 'hash', custom_domain: null, auto_reports: 1 });
    expect(row.custom_domain_token).toMatch(/^[0-9a-f]{32}$/);
    expect(await repo.ownedPage(bob, id)).toBeUndefined();
    const page = await repo.toPage(row);
    expect(page).toMatchObject({ id, published: false, has_password: true, custom_domain_verified: false });
    expect(page.components.map((c) => [c.name, c.endpoint_id, c.group, c.position])).toEqual([['API', api, 'Core', 0], ['Docs', null, null, 1]]);
    expect(await repo.countOf(ann)).toBe(1);
    expect(await repo.countOf(bob)).toBe(0);
    expect((await repo.bySlug('acme'))?.page_id).toBe(id);
    expect(await repo.ownsEndpoint(ann, api)).toBe(true);
    expect(await repo.ownsEndpoint(bob, api)).toBe(false);
    await expect(repo.createPage(bob, fields('acme'), null, [])).rejects.toThrow();
    expect(await repo.countOf(bob)).toBe(0);
    expect((await repo.pagesShowingEndpoint(api)).map((p) => p.page_id)).toEqual([id]);
  });

  it('updates a page: components kept, added and dropped; the password only when given; a new claim drops the verified name', async () => {
    const repo = createStatusPagesRepo(sql().db);
    const ann = await insertTestUser(sql());
    const id = await repo.createPage(ann, fields('acme', { custom_domain: 'status.acme.test' }), 'hash', [
      { component_id: null, name: 'A', endpoint_id: null, group: null },
      { component_id: null, name: 'B', endpoint_id: null, group: null },
    ]);
    await repo.proveDomain(id, 'status.acme.test', 100);
    expect((await repo.byDomain('status.acme.test'))?.page_id).toBe(id);
    const [a] = await repo.components(id);
    await repo.updatePage(ann, id, fields('acme-2', { custom_domain: 'status.acme.test', title: 'New' }), undefined, [
      { component_id: null, name: 'C', endpoint_id: null, group: null },
      { component_id: a.component_id, name: 'A2', endpoint_id: null, group: null },
    ]);
    let row = (await repo.ownedPage(ann, id))!;
    expect(row).toMatchObject({ slug: 'acme-2', title: 'New', password_hash: 'hash', custom_domain: 'status.acme.test' });
    expect((await repo.components(id)).map((c) => [c.name, c.position])).toEqual([['C', 0], ['A2', 1]]);
    expect((await repo.components(id)).find((c) => c.name === 'A2')?.component_id).toBe(a.component_id);
    await repo.updatePage(ann, id, fields('acme-2', { custom_domain: 'other.acme.test' }), null, []);
    row = (await repo.ownedPage(ann, id))!;
    expect(row).toMatchObject({ custom_domain: null, custom_domain_claim: 'other.acme.test', password_hash: null });
    expect(await repo.components(id)).toEqual([]);
    expect(await repo.byDomain('status.acme.test')).toBeUndefined();
  });

  it('proving a domain ends every other page hold on the name; claims due are oldest first, never checked first', async () => {
    const repo = createStatusPagesRepo(sql().db);
    const ann = await insertTestUser(sql());
    const p1 = await repo.createPage(ann, fields('one', { custom_domain: 'x.test' }), null, []);
    const p2 = await repo.createPage(ann, fields('two', { custom_domain: 'x.test' }), null, []);
    const p3 = await repo.createPage(ann, fields('three', { custom_domain: 'y.test' }), null, []);
    await repo.proveDomain(p1, 'x.test', 10);
    expect(await repo.verifiedPageOf('x.test')).toBe(p1);
    // the other page's claim on the name ended: proving it again changes nothing
    expect(await repo.ownedPage(ann, p2)).toMatchObject({ custom_domain: null, custom_domain_claim: null });
    await repo.proveDomain(p2, 'x.test', 20);
    expect(await repo.verifiedPageOf('x.test')).toBe(p1);
    await repo.disproveDomain(p1, 'x.test', 30);
    expect(await repo.verifiedPageOf('x.test')).toBeUndefined();
    expect((await repo.claimsDue(1000, 10)).map((p) => p.page_id)).toEqual([p3, p1]);
    await repo.domainChecked(p3, 40);
    expect((await repo.claimsDue(35, 10)).map((p) => p.page_id)).toEqual([p1]);
    expect((await repo.claimsDue(1000, 10)).map((p) => p.page_id)).toEqual([p1, p3]);
    expect((await repo.claimsDue(1000, 1)).map((p) => p.page_id)).toEqual([p1]);
  });

  it('keeps reports with their updates and affected components; deleting an update puts the report back to the newest one left', async () => {
    const repo = createStatusPagesRepo(sql().db);
    const ann = await insertTestUser(sql());
    const id = await repo.createPage(ann, fields('acme'), null, [{ component_id: null, name: 'API', endpoint_id: null, group: null }]);
    const [api] = await repo.components(id);
    const r = await repo.createReport(id, { title: 'Down', status: 'investigating', message: 'Looking', affected: [{ component_id: api.component_id, impact: 'major_outage' }], incidentId: 7 }, 1000);
    expect((await repo.openReportOfIncident(id, 7))?.report_id).toBe(r);
    const u = await repo.addUpdate(r, { status: 'resolved', message: 'Fixed', affected: [{ component_id: api.component_id, impact: 'degraded' }] }, 2000);
    let report = (await repo.report(id, r))!;
    expect(report).toMatchObject({ status: 'resolved', resolved_at: new Date(2000).toISOString(), affected: [{ component_id: api.component_id, impact: 'degraded' }] });
    expect(report.updates.map((x) => x.message)).toEqual(['Fixed', 'Looking']);
    expect(await repo.openReportOfIncident(id, 7)).toBeUndefined();
    expect(await repo.reportsSince(id, 3000)).toEqual([]);
    expect((await repo.reportsSince(id, 1500)).map((x) => x.report_id)).toEqual([r]);
    expect(await repo.setUpdateMessage(r, u, 'Fixed for good')).toBe(true);
    expect(await repo.hasUpdate(r, u)).toBe(true);
    expect(await repo.deleteUpdate(r, u, 3000)).toBe(true);
    expect(await repo.deleteUpdate(r, u, 3000)).toBe(false);
    report = (await repo.report(id, r))!;
    expect(report).toMatchObject({ status: 'investigating', resolved_at: null });
    expect(await repo.setReportTitle(id, r, 'Outage')).toBe(true);
    expect(await repo.setReportTitle(id + 1, r, 'Elsewhere')).toBe(false);
    expect((await repo.allReports(id)).map((x) => x.title)).toEqual(['Outage']);
    // a page's deletion takes its components and reports along
    expect(await repo.deletePage(ann + 1, id)).toBe(false);
    expect(await repo.deletePage(ann, id)).toBe(true);
    expect(await repo.report(id, r)).toBeUndefined();
    expect(await repo.components(id)).toEqual([]);
  });

  it('keeps maintenance windows per owner and answers their spans and windows per endpoint', async () => {
    const repo = createStatusPagesRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    const e1 = await endpointOf(sql(), ann, 'e1');
    const e2 = await endpointOf(sql(), ann, 'e2');
    const w = await repo.createWindow(ann, { title: 'Upgrade', message: 'm', endpoint_ids: [e2, e1, e1], starts_at: 1000, ends_at: 5000 }, 500);
    expect(await repo.ownedWindow(ann, w, 2000)).toMatchObject({ id: w, endpoint_ids: [e1, e2], state: 'in_progress', starts_at: new Date(1000).toISOString() });
    expect(await repo.ownedWindow(bob, w, 2000)).toBeUndefined();
    expect((await repo.windowsOf(ann, 6000)).map((x) => [x.id, x.state, x.endpoint_ids])).toEqual([[w, 'completed', [e1, e2]]]);
    expect((await repo.windowSpans(0)).sort()).toEqual([[e1, 1000, 5000], [e2, 1000, 5000]].sort());
    expect(await repo.spansFor([e1], 0)).toEqual([[e1, 1000, 5000]]);
    expect(await repo.spansFor([e1], 5000)).toEqual([]);
    expect(await repo.spansFor([], 0)).toEqual([]);
    expect(await repo.recentWindows(0)).toEqual([[w, [e1, e2], 1000, 5000, 'Upgrade', 'm']]);
    expect((await repo.windowsForEndpoints([e2], 0, 2000, 500)).map((x) => [x.id, x.endpoint_ids, x.state])).toEqual([[w, [e2], 'scheduled']]);
    expect(await repo.windowsForEndpoints([e2], 5000, 9000, 500)).toEqual([]);
    await repo.updateWindow(bob, w, { title: 'Hijack', message: '', endpoint_ids: [], starts_at: 0, ends_at: 1 });
    expect(await repo.ownedWindow(ann, w, 2000)).toMatchObject({ title: 'Upgrade', endpoint_ids: [e1, e2] });
    await repo.updateWindow(ann, w, { title: 'Later', message: '', endpoint_ids: [e2], starts_at: 7000, ends_at: 8000 });
    expect(await repo.ownedWindow(ann, w, 2000)).toMatchObject({ title: 'Later', endpoint_ids: [e2], state: 'scheduled' });
    expect(await repo.deleteWindow(bob, w)).toBe(false);
    expect(await repo.deleteWindow(ann, w)).toBe(true);
    expect(await repo.windowSpans(0)).toEqual([]);
  });

  it('reads the open incidents of endpoints (alerting writes them)', async () => {
    const repo = createStatusPagesRepo(sql().db);
    const ann = await insertTestUser(sql());
    const e1 = await endpointOf(sql(), ann, 'e1');
    await sql().db.insertInto('incidents').values([
      { user_id: ann, url_id: e1, condition: 'down', regions: '[]', cause: '', flapping: 0, opened_at: 10, resolved_at: null, resolved_silently: 0, acknowledged_at: null, acknowledged_by: null, suppressed_by: null },
      { user_id: ann, url_id: e1, condition: 'down', regions: '[]', cause: '', flapping: 0, opened_at: 5, resolved_at: 8, resolved_silently: 0, acknowledged_at: null, acknowledged_by: null, suppressed_by: null },
    ]).execute();
    expect(await repo.openIncidents([e1])).toEqual([{ incident_id: expect.any(Number), url_id: e1, condition: 'down', opened_at: 10 }]);
    expect(await repo.openIncidents([])).toEqual([]);
  });
});
