// Maintenance and auto reports against the real alert evaluator over real SQLite: no
// incident opens for an endpoint in a maintenance window in progress (an open one stays open), and an
// incident on a component's endpoint opens a report (investigating; major_outage for down, degraded
// for a threshold) that a resolved update closes when the incident resolves.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { MaintenanceBody, StatusPageBody } from '@upfleet/proto/schemas';
import { createAlertingFixture, httpResult, type AlertingFixture } from '../testing/alerting';
import { createAlertEvaluator } from '../alerting/evaluator';
import { createAlertingRepo } from '../alerting/repo';
import { loadedCatalog } from '../testing/catalog';
import { createStatusPagesRepo } from '../store/status-pages-repo';
import { sqliteSql } from '../store/sql/open';
import { createMaintenanceService, type MaintenanceService } from '../maintenance';
import { createStatusPageService, type StatusPageService } from './status-pages';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);

describe('status pages and alerting', () => {
  let fx: AlertingFixture;
  let clock: number;
  let sp: StatusPageService;
  let maintenance: MaintenanceService;
  let ts: number;
  const make = () =>
    createAlertEvaluator({
      repo: createAlertingRepo(fx.db), logger, regionLabel: (k) => k, primaryRegion: () => 'EU-Germany', now: () => clock,
      skipResult: (u, t) => maintenance.inMaintenance(u, t), incidentHooks: {
        opened: (i) => void hooked.push(sp.incidentHooks.opened(i)),
        resolved: (i) => void hooked.push(sp.incidentHooks.resolved(i)),
      },
    });
  // The evaluator does not wait for the hooks (auto reports are written after the incident): a check waits for them.
  let hooked: Array<Promise<void>> = [];
  const settled = async () => {
    await Promise.all(hooked);
    hooked = [];
  };
  const incidents = () => fx.db.prepare('SELECT * FROM incidents ORDER BY incident_id').all() as Array<Record<string, any>>;
  const down = (id: number) => httpResult(id, next(), { ok: false, phase: 'http', error: 'HTTP 503', status_code: 503 });
  const up = (id: number) => httpResult(id, next());
  const next = () => {
    ts += 10_000;
    clock = ts + 500;
    return ts;
  };
  const window = (endpointId: number, startsAt: number, endsAt: number) =>
    maintenance.createWindow(fx.userId, MaintenanceBody.parse({ title: 'Upgrade', endpoint_ids: [endpointId], starts_at: new Date(startsAt).toISOString(), ends_at: new Date(endsAt).toISOString() }));
  const page = (components: Array<{ name: string; endpoint_id: number | null }>, over: Record<string, unknown> = {}) =>
    sp.create(fx.userId, StatusPageBody.parse({ slug: `page-${Math.random().toString(36).slice(2, 10)}`, title: 'Status', components, ...over }));

  beforeEach(async () => {
    fx = createAlertingFixture();
    clock = T0;
    ts = T0;
    const catalog = await loadedCatalog(fx.db);
    const repo = createStatusPagesRepo(sqliteSql(fx.db).db);
    maintenance = createMaintenanceService({ repo, now: () => clock });
    sp = createStatusPageService({ repo, maintenance, planOf: () => catalog.packageByName('Business')!, cookieKey: Buffer.alloc(32), now: () => clock });
  });
  afterEach(async () => {
    await settled();
    fx.close();
  });

  it('opens no incident while the endpoint is in maintenance, and one when it is still down after the window', async () => {
    const id = fx.addEndpoint();
    const other = fx.addEndpoint();
    await window(id, T0, T0 + 60_000);
    const ev = make();
    for (let i = 0; i < 4; i++) ev.evaluate([down(id), down(other)]); // results up to T0 + 80 s
    // Only the endpoint outside maintenance has an incident.
    expect(incidents().map((i) => i.url_id)).toEqual([other]);
    // Its window is over: two more failures confirm the outage.
    ev.evaluate([down(id)]);
    ev.evaluate([down(id)]);
    expect(incidents().filter((i) => i.url_id === id && i.resolved_at === null)).toHaveLength(1);
  });

  it('keeps an incident opened before the window open while the window runs, even when the endpoint is up', async () => {
    const id = fx.addEndpoint();
    const ev = make();
    ev.evaluate([down(id)]);
    ev.evaluate([down(id)]);
    expect(incidents()).toHaveLength(1);
    await window(id, ts, ts + 3600_000);
    for (let i = 0; i < 5; i++) ev.evaluate([up(id)]);
    expect(incidents()[0].resolved_at).toBeNull();
  });

  it('auto reports: a down incident opens an investigating major_outage report on its components, its resolution posts resolved', async () => {
    const id = fx.addEndpoint({ name: 'API' });
    const p = await page([{ name: 'Public API', endpoint_id: id }, { name: 'Static', endpoint_id: null }]);
    const off = await page([{ name: 'Public API', endpoint_id: id }], { auto_reports: false });
    const ev = make();
    ev.evaluate([down(id)]);
    ev.evaluate([down(id)]);
    await settled();
    const incident = incidents()[0];
    const [report] = await sp.listReports(fx.userId, p.id);
    expect(report).toMatchObject({
      title: 'Public API is down', status: 'investigating', incident_id: incident.incident_id, resolved_at: null,
      affected: [{ component_id: p.components[0].component_id, impact: 'major_outage' }],
    });
    expect(report.updates.map((u) => u.message)).toEqual(['We are investigating an outage of Public API.']);
    expect(await sp.listReports(fx.userId, off.id)).toEqual([]);
    // The public view shows it: the component is major_outage, and so is the page.
    const view = await sp.view(await sp.publicPage({ slug: p.slug }));
    expect(view.data.overall).toBe('major_outage');
    expect(view.data.components.map((c) => c.status)).toEqual(['major_outage', 'operational']);

    ev.evaluate([up(id)]);
    ev.evaluate([up(id)]);
    await settled();
    expect(incidents()[0].resolved_at).not.toBeNull();
    const [after] = await sp.listReports(fx.userId, p.id);
    expect(after).toMatchObject({ status: 'resolved' });
    expect(after.resolved_at).not.toBeNull();
    expect(after.updates.map((u) => u.status)).toEqual(['resolved', 'investigating']);
    const later = await sp.view(await sp.publicPage({ slug: p.slug }));
    expect(later.data.overall).toBe('operational');
  });

  it('auto reports: an incident resolved silently (monitoring switched off) resolves its report too', async () => {
    const id = fx.addEndpoint({ name: 'Jobs' });
    const p = await page([{ name: 'Jobs', endpoint_id: id }]);
    const ev = make();
    ev.evaluate([down(id)]);
    ev.evaluate([down(id)]);
    await settled();
    expect((await sp.listReports(fx.userId, p.id))[0]).toMatchObject({ status: 'investigating' });
    ev.closeEndpoint(id);
    await settled();
    expect((await sp.listReports(fx.userId, p.id))[0]).toMatchObject({ status: 'resolved' });
  });

  it('auto reports: a threshold incident opens a degraded report', async () => {
    const id = fx.addEndpoint({ name: 'Shop', features: { response_time: true } });
    fx.addThreshold(id, 'response_time', '>', 100);
    const p = await page([{ name: 'Shop', endpoint_id: id }]);
    const ev = make();
    for (let i = 0; i < 3; i++) ev.evaluate([httpResult(id, next(), { total_ms: 900 })]);
    const open = incidents().filter((i) => i.resolved_at === null);
    expect(open.map((i) => i.condition)).toEqual(['threshold:response_time:any']);
    await settled();
    const [report] = await sp.listReports(fx.userId, p.id);
    expect(report).toMatchObject({ title: 'Shop: degraded performance', affected: [{ component_id: p.components[0].component_id, impact: 'degraded' }] });
  });
});
