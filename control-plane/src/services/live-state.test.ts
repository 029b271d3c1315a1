// The dashboard's live state on real SQLite: status across regions, the last 30 checks, what a
// restart keeps, and the events each stored result becomes.
import { afterEach, describe, expect, it } from 'vitest';
import { createAlertingFixture, httpResult, type AlertingFixture } from '../testing/alerting';
import { createLiveState } from './live-state';

const label = (key: string) => key.replace('-', ' - ');
let fx: AlertingFixture;
afterEach(() => fx?.close());

describe('live state', () => {
  it('is pending before a result, up after one, degraded when one region fails, down when all do; paused when off', () => {
    fx = createAlertingFixture();
    const id = fx.addEndpoint({ regions: ['EU-Germany', 'US-Virginia'], features: { response_time: true } });
    const published: Array<{ userId: number; type: string; data: any }> = [];
    const live = createLiveState({ db: fx.db, regionLabel: label, publish: (userId, type, data) => published.push({ userId, type, data }) });
    expect(live.fields(id, true)).toMatchObject({ status: 'pending', last_checked_at: null, recent: [] });
    const t = Date.now();
    live.onResults([httpResult(id, t - 3000, { total_ms: 41.6 })]);
    expect(live.fields(id, true)).toMatchObject({ status: 'up', last_response_ms: 42, last_status_code: 200, last_error: null, last_checked_at: new Date(t - 3000).toISOString() });
    live.onResults([httpResult(id, t - 2000, { region: 'US-Virginia', check_id: `${id}:http:US-Virginia`, ok: false, status_code: 0, phase: 'connect', error: 'connection refused', total_ms: 0 })]);
    expect(live.fields(id, true)).toMatchObject({ status: 'degraded', last_error: 'connection refused from US - Virginia', last_status_code: null, last_response_ms: null });
    live.onResults([httpResult(id, t - 1000, { status_code: 503 })]);
    expect(live.fields(id, true)).toMatchObject({ status: 'down', last_error: 'HTTP 503 from EU - Germany', last_status_code: 503 });
    expect(live.fields(id, false).status).toBe('paused');
    expect(live.counts(fx.userId)).toEqual({ down: 1, degraded: 0, pending: 0, up: 0, paused: 0 });
    expect(published.map((p) => [p.userId, p.type, p.data.status])).toEqual([[fx.userId, 'result', 'up'], [fx.userId, 'result', 'degraded'], [fx.userId, 'result', 'down']]);
    expect(published[2].data.recent).toEqual({ at: t - 1000, ok: false, ms: 10, code: 503 });
    live.close();
  });

  it('reads down while a down incident is open even after a passing check, degraded under a threshold incident, and up once they resolve (one rule for word, filter and counts)', async () => {
    fx = createAlertingFixture();
    const id = fx.addEndpoint();
    const published: Array<{ type: string; data: any }> = [];
    const open = (condition: string) => fx.db.prepare("INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at) VALUES (?, ?, ?, '[]', 'test', ?)").run(fx.userId, id, condition, Date.now() - 60_000);
    open('down');
    // an incident open before a start is read at start
    const live = createLiveState({ db: fx.db, regionLabel: label, publish: (_u, type, data) => published.push({ type, data }) });
    const t = Date.now();
    live.onResults([httpResult(id, t - 2000)]);
    expect(live.fields(id, true).status).toBe('down');
    expect(live.statusOf(id, true)).toBe('down');
    expect(JSON.parse(`{${live.fieldsJson(id, true)}}`).status).toBe('down');
    expect(published.at(-1)).toMatchObject({ type: 'result', data: { status: 'down' } });
    expect(live.counts(fx.userId)).toMatchObject({ down: 1, up: 0 });
    expect(live.fields(id, false).status).toBe('paused');
    fx.db.prepare("UPDATE incidents SET resolved_at = ? WHERE url_id = ? AND condition = 'down'").run(Date.now(), id);
    open('threshold:response_time');
    live.incidentChanged(id);
    expect(published.at(-1)).toMatchObject({ type: 'endpoint.changed', data: { url_id: id } });
    expect(live.fields(id, true).status).toBe('degraded');
    fx.db.prepare('UPDATE incidents SET resolved_at = ? WHERE url_id = ?').run(Date.now(), id);
    live.incidentChanged(id);
    expect(live.fields(id, true).status).toBe('up');
    expect(live.counts(fx.userId)).toMatchObject({ down: 0, up: 1 });
    live.close();
  });

  it('keeps the last 30 checks oldest first, ignores a re-sent result, and lets HTTP speak over ping', () => {
    fx = createAlertingFixture();
    const id = fx.addEndpoint({ features: { ping_host: true } });
    const live = createLiveState({ db: fx.db, regionLabel: label });
    const t = Date.now() - 100_000;
    live.onResults([httpResult(id, t, { kind: 'CHECK_KIND_PING', check_id: `${id}:ping:EU-Germany`, status_code: 0, total_ms: 5 })]);
    expect(live.fields(id, true).recent).toHaveLength(1);
    const results = Array.from({ length: 40 }, (_, i) => httpResult(id, t + 1000 + i * 1000, { total_ms: i }));
    live.onResults(results.slice(20));
    live.onResults(results.slice(0, 20).reverse()); // late ones: older than the region's last, not counted again
    live.onResults([results[39]]);
    const recent = live.fields(id, true).recent;
    expect(recent).toHaveLength(20);
    expect(recent.map((c) => c.ms)).toEqual(Array.from({ length: 20 }, (_, i) => 20 + i));
    live.onResults([httpResult(id, t + 60_000, { kind: 'CHECK_KIND_PING', check_id: `${id}:ping:EU-Germany`, status_code: 0, total_ms: 7 })]);
    expect(live.fields(id, true).recent).toHaveLength(20); // ping no longer speaks once HTTP does
    live.onResults(Array.from({ length: 15 }, (_, i) => httpResult(id, t + 100_000 + i, { total_ms: 100 + i })));
    expect(live.fields(id, true).recent).toHaveLength(30);
    expect(live.fields(id, true).recent.at(-1)!.ms).toBe(114);
    live.close();
  });

  it('survives a restart through SQLite, and forgets a deleted endpoint', () => {
    fx = createAlertingFixture();
    const id = fx.addEndpoint();
    const other = fx.addEndpoint();
    const first = createLiveState({ db: fx.db, regionLabel: label });
    first.onResults([httpResult(id, Date.now() - 1000, { status_code: 500 }), httpResult(other, Date.now() - 1000)]);
    first.close();
    const events: string[] = [];
    const second = createLiveState({ db: fx.db, regionLabel: label, publish: (_u, type, data: any) => events.push(`${type}:${data.url_id}:${data.deleted}`) });
    expect(second.fields(id, true)).toMatchObject({ status: 'down', last_error: 'HTTP 500 from EU - Germany', recent: [{ ok: false, code: 500 }] });
    fx.db.prepare('DELETE FROM endpoints WHERE url_id = ?').run(other);
    second.endpointChanged(other);
    expect(events).toEqual([`endpoint.changed:${other}:true`]);
    expect(second.fields(other, true).status).toBe('pending');
    second.onResults([httpResult(other, Date.now())]); // a late result of a deleted endpoint: no owner, nothing kept
    second.close();
    expect(fx.db.prepare('SELECT url_id FROM endpoint_live ORDER BY url_id').pluck().all()).toEqual([id]);
  });

  it('reads maintenance while a window is in progress (rows, counts, result events) and its own status once it ends', () => {
    fx = createAlertingFixture();
    const id = fx.addEndpoint();
    const other = fx.addEndpoint();
    let windowEnds = Date.now() + 60_000;
    const published: Array<{ type: string; data: any }> = [];
    const live = createLiveState({
      db: fx.db, regionLabel: label, publish: (_u, type, data) => published.push({ type, data }),
      inMaintenance: (urlId, at) => urlId === id && at < windowEnds,
    });
    live.onResults([httpResult(id, Date.now() - 1000, { status_code: 503 }), httpResult(other, Date.now() - 1000)]);
    expect(live.fields(id, true)).toMatchObject({ status: 'maintenance', last_status_code: 503, last_error: 'HTTP 503 from EU - Germany' });
    expect(JSON.parse(`{${live.fieldsJson(id, true)}}`).status).toBe('maintenance');
    expect(live.fields(id, false).status).toBe('paused'); // monitoring off wins
    expect(live.counts(fx.userId)).toEqual({ down: 0, degraded: 0, maintenance: 1, pending: 0, up: 1, paused: 0 });
    expect(published.map((p) => [p.data.url_id, p.data.status])).toEqual([[id, 'maintenance'], [other, 'up']]);
    // The window ends: without a new result the endpoint reads its own status again, and its owner hears of it.
    windowEnds = Date.now() - 1;
    live.maintenanceChanged(id);
    expect(published.at(-1)).toEqual({ type: 'endpoint.changed', data: { url_id: id, deleted: false } });
    expect(live.fields(id, true).status).toBe('down');
    expect(JSON.parse(`{${live.fieldsJson(id, true)}}`).status).toBe('down');
    expect(live.counts(fx.userId)).toEqual({ down: 1, degraded: 0, pending: 0, up: 1, paused: 0 });
    live.close();
  });
});
