import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createAlertingFixture, httpResult, type AlertingFixture } from '../testing/alerting';
import { createAlertEvaluator, FLAP_SETTLE_MS } from './evaluator';
import { createAlertingRepo } from './repo';

const logger = pino({ level: 'silent' });
const LABELS: Record<string, string> = { 'EU-Germany': 'EU - Germany', 'US-Virginia': 'US - Virginia', 'AP-Singapore': 'AP - Singapore' };
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);

describe('alert evaluator', () => {
  let fx: AlertingFixture;
  let clock: number;
  let ts: number;
  const make = () => createAlertEvaluator({
    repo: createAlertingRepo(fx.db), logger, regionLabel: (k) => LABELS[k] ?? k, primaryRegion: () => 'EU-Germany', now: () => clock,
  });
  const incidents = () => fx.db.prepare('SELECT * FROM incidents ORDER BY incident_id').all() as Array<Record<string, any>>;
  const deliveries = () => fx.db.prepare('SELECT * FROM alert_deliveries ORDER BY delivery_id').all() as Array<Record<string, any>>;
  /** One check result per call, 10 s apart on both the check's and the evaluator's clock. */
  const next = () => {
    ts += 10_000;
    clock = ts + 500;
    return ts;
  };

  beforeEach(() => {
    fx = createAlertingFixture();
    clock = T0;
    ts = T0;
  });
  afterEach(() => fx.close());

  it('opens an incident on the second consecutive failure, not the first, and queues one delivery per enabled method', () => {
    const id = fx.addEndpoint({ name: 'Shop', url: 'https://shop.example.com/' });
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x', signing_secret: 'whsec_AAAA' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    fx.addMethod('email', { email_address: 'a@example.com' }, false);
    const ev = make();
    ev.evaluate([httpResult(id, next(), { ok: false, phase: 'http', error: 'HTTP 503', status_code: 503 })]);
    expect(incidents()).toHaveLength(0);
    ev.evaluate([httpResult(id, next(), { ok: false, phase: 'http', error: 'HTTP 503', status_code: 503 })]);
    const [inc] = incidents();
    expect(inc).toMatchObject({ url_id: id, condition: 'down', cause: 'HTTP 503 from EU - Germany', regions: '["EU - Germany"]', resolved_at: null, opened_at: clock });
    const d = deliveries();
    expect(d.map((x) => [x.alert_method_id, x.event, x.status, x.idempotency_key])).toEqual([
      [webhook, 'opened', 'pending', `inc${inc.incident_id}-opened-m${webhook}`],
      [slack, 'opened', 'pending', `inc${inc.incident_id}-opened-m${slack}`],
    ]);
    expect(JSON.parse(d[0].payload)).toMatchObject({ type: 'incident.opened', endpoint: { id, name: 'Shop', url: 'https://shop.example.com/' }, incident: { id: inc.incident_id, cause: 'HTTP 503 from EU - Germany' } });
  });

  it('a tcp endpoint opens its down incident from its tcp results, cause included, and resolves on passes', () => {
    const id = fx.addEndpoint({ name: 'Db', url: 'tcp://db.example.com:5432' });
    fx.db.prepare(`INSERT INTO endpoint_checks (url_id, kind, config) VALUES (?, 'tcp', '{"target":"db.example.com:5432"}')`).run(id);
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ev = make();
    const tcp = (over: Record<string, unknown>) => httpResult(id, next(), { check_id: `${id}:tcp:EU-Germany`, kind: 'CHECK_KIND_TCP', status_code: 0, ...over });
    ev.evaluate([tcp({ ok: false, phase: 'connect', error: 'connection refused' })]);
    ev.evaluate([tcp({ ok: false, phase: 'connect', error: 'connection refused' })]);
    expect(incidents()).toMatchObject([{ url_id: id, condition: 'down', cause: 'connection refused from EU - Germany', resolved_at: null }]);
    ev.evaluate([tcp({ ok: true })]);
    ev.evaluate([tcp({ ok: true })]);
    expect(incidents()[0].resolved_at).not.toBeNull();
  });

  it('resolves after two consecutive passes and queues the resolved event; a single pass keeps it open', () => {
    const id = fx.addEndpoint();
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ev = make();
    for (let i = 0; i < 2; i++) ev.evaluate([httpResult(id, next(), { ok: false, phase: 'timeout', error: 'timed out after 9000 ms during connect' })]);
    expect(incidents()[0].cause).toBe('timeout after 9 s from EU - Germany');
    ev.evaluate([httpResult(id, next())]);
    expect(incidents()[0].resolved_at).toBeNull();
    ev.evaluate([httpResult(id, next(), { ok: false, phase: 'timeout', error: 'timed out after 9000 ms during connect' })]);
    ev.evaluate([httpResult(id, next())]);
    expect(incidents()[0].resolved_at).toBeNull();
    ev.evaluate([httpResult(id, next())]);
    expect(incidents()[0].resolved_at).toBe(clock);
    expect(deliveries().map((d) => d.event)).toEqual(['opened', 'resolved']);
  });

  it('counts a re-sent result once (same timestamp), so a duplicate batch cannot confirm a failure', () => {
    const id = fx.addEndpoint();
    const ev = make();
    const failed = httpResult(id, next(), { ok: false, phase: 'connect', error: 'connection refused', status_code: 0 });
    ev.evaluate([failed]);
    ev.evaluate([failed]);
    expect(incidents()).toHaveLength(0);
  });

  it('keeps its state across a restart: one failure before and one after confirm; a resolved incident stays resolved', () => {
    const id = fx.addEndpoint();
    make().evaluate([httpResult(id, next(), { ok: false, status_code: 500, phase: 'http', error: 'HTTP 500' })]);
    const restarted = make();
    restarted.evaluate([httpResult(id, next(), { ok: false, status_code: 500, phase: 'http', error: 'HTTP 500' })]);
    expect(incidents()).toHaveLength(1);
    restarted.evaluate([httpResult(id, next()), httpResult(id, next())]);
    const again = make();
    again.evaluate([httpResult(id, next())]);
    expect(incidents()).toHaveLength(1);
    expect(incidents()[0].resolved_at).not.toBeNull();
  });

  it('opens an incident for a 2-region endpoint down in one region, listing that region', () => {
    const id = fx.addEndpoint({ regions: ['EU-Germany', 'US-Virginia'], features: { response_time: true } });
    const ev = make();
    for (let i = 0; i < 2; i++) {
      const t = next();
      ev.evaluate([
        httpResult(id, t, { region: 'EU-Germany' }),
        httpResult(id, t, { region: 'US-Virginia', ok: false, status_code: 502, phase: 'http', error: 'HTTP 502' }),
      ]);
    }
    expect(incidents()).toHaveLength(1);
    expect(incidents()[0]).toMatchObject({ regions: '["US - Virginia"]', cause: 'HTTP 502 from US - Virginia' });
  });

  it('opens none for a 3-region endpoint down in 1 of 3, and one when a second region is down', () => {
    const id = fx.addEndpoint({ regions: ['EU-Germany', 'US-Virginia', 'AP-Singapore'], features: { response_time: true } });
    const ev = make();
    const round = (downIn: string[]) => {
      const t = next();
      ev.evaluate(['EU-Germany', 'US-Virginia', 'AP-Singapore'].map((region) =>
        downIn.includes(region) ? httpResult(id, t, { region, ok: false, status_code: 503, phase: 'http', error: 'HTTP 503' }) : httpResult(id, t, { region })));
    };
    for (let i = 0; i < 4; i++) round(['AP-Singapore']);
    expect(incidents()).toHaveLength(0);
    round(['AP-Singapore', 'US-Virginia']);
    round(['AP-Singapore', 'US-Virginia']);
    expect(incidents()).toHaveLength(1);
    expect(JSON.parse(incidents()[0].regions)).toEqual(['US - Virginia', 'AP - Singapore']);
  });

  it('opens a response_time threshold incident (> 200 ms with 500 ms answers) with a readable cause', () => {
    const id = fx.addEndpoint({ features: { response_time: true } });
    fx.addThreshold(id, 'response_time', '>', 200);
    const ev = make();
    ev.evaluate([httpResult(id, next(), { total_ms: 502.4 })]);
    ev.evaluate([httpResult(id, next(), { total_ms: 2340 })]);
    const list = incidents();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ condition: 'threshold:response_time:any', cause: 'response time 2,340 ms > 200 ms' });
  });

  it('opens a cert_expiry threshold incident (< 14 days with 5 days left) and ignores results without a certificate', () => {
    const id = fx.addEndpoint({ features: { cert_expiry: true } });
    fx.addThreshold(id, 'cert_expiry', '<', 14);
    const ev = make();
    const tls = (over: object) => httpResult(id, next(), { kind: 'CHECK_KIND_TLS', status_code: 0, ...over });
    ev.evaluate([tls({ cert_days_left: 4.6, cert_not_after_ms: T0 + 4.6 * 86_400_000 })]);
    ev.evaluate([tls({ ok: false, phase: 'connect', error: 'refused' })]);
    expect(incidents()).toHaveLength(0);
    ev.evaluate([tls({ cert_days_left: 4.5, cert_not_after_ms: T0 + 4.5 * 86_400_000 })]);
    expect(incidents()[0]).toMatchObject({ condition: 'threshold:cert_expiry:any', cause: 'certificate expires in 5 days' });
  });

  it('reports a flapping condition once and stays quiet until it has settled, then resolves', () => {
    const id = fx.addEndpoint();
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ev = make();
    const fail = () => ev.evaluate([httpResult(id, next(), { ok: false, status_code: 503, phase: 'http', error: 'HTTP 503' })]);
    const pass = () => ev.evaluate([httpResult(id, next())]);
    // Down, up, down, up: four changes, each told. The fifth change (down) starts flapping.
    for (let i = 0; i < 2; i++) {
      fail(); fail(); pass(); pass();
    }
    expect(deliveries().map((d) => d.event)).toEqual(['opened', 'resolved', 'opened', 'resolved']);
    fail(); fail();
    const flapping = incidents().at(-1)!;
    expect(flapping.flapping).toBe(1);
    expect(flapping.cause).toContain('flapping: changed state 5 times in 30 minutes');
    expect(JSON.parse(deliveries().at(-1)!.payload).incident.flapping).toBe(true);
    for (let i = 0; i < 3; i++) {
      pass(); pass(); fail(); fail();
    }
    expect(deliveries()).toHaveLength(5); // quiet while flapping
    expect(incidents().filter((i) => i.resolved_at === null)).toHaveLength(1);
    pass(); pass();
    clock += FLAP_SETTLE_MS;
    ts += FLAP_SETTLE_MS;
    pass();
    expect(incidents().at(-1)!.resolved_at).toBe(clock);
    expect(deliveries().map((d) => d.event).at(-1)).toBe('resolved');
    expect(deliveries()).toHaveLength(6);
  });

  it('resolves the incidents of a disabled or deleted endpoint without queuing anything', () => {
    const id = fx.addEndpoint();
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ev = make();
    for (let i = 0; i < 2; i++) ev.evaluate([httpResult(id, next(), { ok: false, status_code: 503, phase: 'http', error: 'HTTP 503' })]);
    expect(deliveries()).toHaveLength(1);
    ev.closeEndpoint(id);
    expect(incidents()[0]).toMatchObject({ resolved_silently: 1 });
    expect(incidents()[0].resolved_at).not.toBeNull();
    expect(deliveries()).toHaveLength(1);
    expect(fx.db.prepare('SELECT COUNT(*) FROM alert_region_states WHERE url_id = ?').pluck().get(id)).toBe(0);
  });

  it('resolves silently the incident of a threshold that was removed', () => {
    const id = fx.addEndpoint({ features: { response_time: true } });
    fx.addThreshold(id, 'response_time', '>', 100);
    const ev = make();
    for (let i = 0; i < 2; i++) ev.evaluate([httpResult(id, next(), { total_ms: 900 })]);
    expect(incidents()).toHaveLength(1);
    fx.db.prepare('DELETE FROM alert_thresholds WHERE url_id = ?').run(id);
    ev.thresholdsChanged(id);
    expect(incidents()[0].resolved_at).not.toBeNull();
    expect(incidents()[0].resolved_silently).toBe(1);
  });

  it('ignores results of endpoints that are not monitored (disabled or unknown)', () => {
    const id = fx.addEndpoint();
    fx.db.prepare('UPDATE endpoints SET monitoring_enabled = 0 WHERE url_id = ?').run(id);
    const ev = make();
    for (let i = 0; i < 3; i++) ev.evaluate([httpResult(id, next(), { ok: false, status_code: 503 }), httpResult(99999, ts, { ok: false })]);
    expect(incidents()).toHaveLength(0);
  });

  it('keeps incidents for the owner plan\'s retention: older resolved ones and their deliveries are pruned, open ones stay', () => {
    const id = fx.addEndpoint();
    const m = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const day = 86_400_000;
    const ins = fx.db.prepare('INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const old = Number(ins.run(fx.userId, id, 'down', '[]', 'old', T0 - 400 * day, T0 - 366 * day).lastInsertRowid);
    ins.run(fx.userId, id, 'down', '[]', 'recent', T0 - 300 * day, T0 - 299 * day);
    ins.run(fx.userId, id, 'threshold:response_time:any', '[]', 'open for long', T0 - 500 * day, null);
    const repo = createAlertingRepo(fx.db);
    repo.insertDelivery({ userId: fx.userId, methodId: m, incidentId: old, event: { type: 'incident.resolved', occurred_at: '', incident: null, endpoint: null }, key: 'k-old', now: T0 - 366 * day });
    repo.prune(T0); // Business keeps 365 days
    expect(incidents().map((i) => i.cause)).toEqual(['recent', 'open for long']);
    expect(deliveries()).toHaveLength(0);
  });

  it('resolves silently an incident whose down regions were removed from the endpoint', () => {
    const id = fx.addEndpoint({ regions: ['EU-Germany', 'US-Virginia'], features: { response_time: true } });
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ev = make();
    for (let i = 0; i < 2; i++) {
      const t = next();
      ev.evaluate([httpResult(id, t), httpResult(id, t, { region: 'US-Virginia', ok: false, status_code: 503, phase: 'http', error: 'HTTP 503' })]);
    }
    expect(incidents()[0].resolved_at).toBeNull();
    fx.db.prepare(`UPDATE endpoints SET regions = '["EU-Germany"]' WHERE url_id = ?`).run(id);
    ev.invalidate(id);
    expect(incidents()[0]).toMatchObject({ resolved_at: clock, resolved_silently: 1 });
    expect(deliveries().map((d) => d.event)).toEqual(['opened']);
    // And it can open again later from the regions it still has.
    for (let i = 0; i < 2; i++) ev.evaluate([httpResult(id, next(), { ok: false, status_code: 500, phase: 'http', error: 'HTTP 500' })]);
    expect(incidents()).toHaveLength(2);
  });
});
