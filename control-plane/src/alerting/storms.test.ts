// Storms on real SQLite with a fake clock: incidents open through the evaluator (heartbeat
// verdicts), the escalation worker's passes run by hand; what is checked is the outbox (one row
// per method and group, its key and payload) and the incidents' groups.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createAlertingFixture, type AlertingFixture } from '../testing/alerting';
import { createEscalator, type Escalator } from './escalation';
import { createEscalationRepo } from './escalation-repo';
import { createAlertEvaluator, type AlertEvaluator } from './evaluator';
import { createAlertingRepo } from './repo';
import { STORM_HOLD_MS } from './storms';
import { createStormsRepo, type StormsRepo } from './storms-repo';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const SEC = 1000;

describe('storms', () => {
  let fx: AlertingFixture;
  let clock: number;
  let escalator: Escalator;
  let ev: AlertEvaluator;
  let storms: StormsRepo;

  /** A control plane (re)starting on the same database. */
  const build = () => {
    const repo = createAlertingRepo(fx.db);
    storms = createStormsRepo(fx.db);
    escalator = createEscalator({ repo, esc: createEscalationRepo(fx.db), logger, now: () => clock, storms, holdMs: STORM_HOLD_MS });
    ev = createAlertEvaluator({ repo, logger, regionLabel: (k) => k, primaryRegion: () => 'EU-Germany', now: () => clock, escalator });
  };
  const at = (seconds: number) => {
    clock = T0 + seconds * SEC;
    return escalator.tick();
  };
  const deliveries = () => fx.db.prepare('SELECT * FROM alert_deliveries ORDER BY delivery_id').all() as Array<Record<string, any>>;
  const keys = () => deliveries().map((d) => d.idempotency_key as string);
  const incidentOf = (urlId: number) => fx.db.prepare('SELECT * FROM incidents WHERE url_id = ? ORDER BY incident_id DESC').get(urlId) as Record<string, any>;
  const down = (urlId: number) => ev.pushed(urlId, true, 'no ping', clock);
  const up = (urlId: number) => ev.pushed(urlId, false, '', clock);
  const sites = (n: number) => Array.from({ length: n }, (_, k) => fx.addEndpoint({ name: `Site ${k + 1}` }));
  const listed = (d: Record<string, any>) => (JSON.parse(d.payload).group.incidents as Array<{ endpoint: { name: string } }>).map((g) => g.endpoint.name);

  beforeEach(() => {
    fx = createAlertingFixture();
    clock = T0;
    build();
  });
  afterEach(() => fx.close());

  it('up to the threshold, each incident goes out alone once the hold has passed, without waiting for a minute', () => {
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ids = sites(5);
    for (const id of ids) down(id);
    expect(deliveries()).toEqual([]);
    expect(at(2.9)).toBe(0);
    expect(at(3)).toBe(5);
    expect(keys()).toEqual(ids.map((id) => `inc${incidentOf(id).incident_id}-opened-m${webhook}`));
    expect(ids.map((id) => incidentOf(id).group_id)).toEqual([null, null, null, null, null]);
  });

  it('over the threshold within 60 s, each method gets one grouped row listing every waiting incident, and none goes out alone', () => {
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    const ids = sites(7);
    for (const [k, id] of ids.entries()) {
      clock = T0 + k * 300;
      down(id);
    }
    expect(at(3)).toBe(2);
    const group = incidentOf(ids[0]).group_id as number;
    expect(group).toBeGreaterThan(0);
    expect(ids.map((id) => incidentOf(id).group_id)).toEqual(ids.map(() => group));
    expect(deliveries().map((d) => [d.alert_method_id, d.event, d.incident_id, d.group_id, d.idempotency_key])).toEqual([
      [webhook, 'opened', null, group, `grp${group}-opened-m${webhook}`], [slack, 'opened', null, group, `grp${group}-opened-m${slack}`],
    ]);
    expect(JSON.parse(deliveries()[0].payload)).toMatchObject({ type: 'incident.group_opened', incident: null, group: { id: group } });
    expect(listed(deliveries()[0])).toEqual(ids.map((_, k) => `Site ${k + 1}`));
    const timeline = fx.db.prepare('SELECT type, detail FROM incident_events WHERE incident_id = ?').all(incidentOf(ids[3]).incident_id);
    expect(timeline).toEqual([{ type: 'grouped', detail: 'Sent in a group of 7 incidents (a storm)' }]);
    expect(at(10)).toBe(0);
    expect(at(600)).toBe(0);
    expect(deliveries()).toHaveLength(2);
  });

  it('the threshold is the workspace\'s: at 10, seven openings are no storm', () => {
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    storms.setThreshold(fx.userId, 10, T0);
    for (const id of sites(7)) down(id);
    expect(at(3)).toBe(7);
    expect(deliveries().every((d) => d.group_id === null && d.incident_id !== null)).toBe(true);
  });

  it('incidents that open later in the storm make the next group; the earlier ones are not sent again', () => {
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ids = sites(9);
    for (const id of ids.slice(0, 6)) down(id);
    expect(at(3)).toBe(1);
    clock = T0 + 20 * SEC;
    for (const id of ids.slice(6)) down(id);
    expect(at(23)).toBe(1);
    const [first, second] = deliveries();
    expect(listed(first)).toEqual(['Site 1', 'Site 2', 'Site 3', 'Site 4', 'Site 5', 'Site 6']);
    expect(listed(second)).toEqual(['Site 7', 'Site 8', 'Site 9']);
    expect(second.idempotency_key).toBe(`grp${incidentOf(ids[6]).group_id}-opened-m${webhook}`);
    expect(incidentOf(ids[6]).group_id).not.toBe(incidentOf(ids[0]).group_id);
  });

  it('a restart mid-storm neither loses nor doubles: the group is decided once, in the pass that sends it', () => {
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ids = sites(6);
    for (const id of ids) down(id);
    build(); // restarted while the first messages were held
    expect(at(3)).toBe(1);
    build(); // and again after the group went out
    expect(at(3.5)).toBe(0);
    expect(at(60)).toBe(0);
    expect(deliveries()).toHaveLength(1);
    expect(listed(deliveries()[0])).toHaveLength(6);
  });

  it('recoveries are grouped: after a hold for the others, or at once when the last of the group resolves', () => {
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const ids = sites(6);
    for (const id of ids) down(id);
    at(3);
    const group = incidentOf(ids[0]).group_id as number;
    clock = T0 + 30 * SEC;
    for (const id of ids.slice(0, 2)) up(id);
    expect(deliveries()).toHaveLength(1); // nothing alone
    expect(at(31)).toBe(0);
    expect(at(33)).toBe(1);
    clock = T0 + 40 * SEC;
    for (const id of ids.slice(2)) up(id);
    expect(at(40)).toBe(1);
    expect(at(100)).toBe(0);
    const rows = deliveries().slice(1);
    expect(rows.map((d) => [d.event, d.incident_id, d.group_id, d.idempotency_key])).toEqual([
      ['resolved', null, group, `grp${group}-resolved-i${incidentOf(ids[0]).incident_id}-m${webhook}`],
      ['resolved', null, group, `grp${group}-resolved-i${incidentOf(ids[2]).incident_id}-m${webhook}`],
    ]);
    expect(JSON.parse(rows[0].payload).type).toBe('incident.group_resolved');
    expect(listed(rows[0])).toEqual(['Site 1', 'Site 2']);
    expect(listed(rows[1])).toEqual(['Site 3', 'Site 4', 'Site 5', 'Site 6']);
  });

  it('an incident that resolves while its first message is held sends nothing at all', () => {
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const [site] = sites(1);
    down(site);
    clock = T0 + 1 * SEC;
    up(site);
    expect(at(3)).toBe(0);
    expect(at(60)).toBe(0);
    expect(deliveries()).toEqual([]);
  });

  it('PagerDuty keeps one alert per incident in a storm (its dedup_key), the other methods are grouped', () => {
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const pd = fx.addMethod('pagerduty', { routing_key: 'R'.repeat(32) });
    const ids = sites(6);
    for (const id of ids) down(id);
    expect(at(3)).toBe(7);
    const group = incidentOf(ids[0]).group_id as number;
    expect(keys()).toEqual(expect.arrayContaining([`grp${group}-opened-m${webhook}`, ...ids.map((id) => `inc${incidentOf(id).incident_id}-opened-m${pd}`)]));
    expect(keys()).toHaveLength(7);
    clock = T0 + 30 * SEC;
    for (const id of ids) up(id);
    expect(at(30)).toBe(7);
    expect(keys().slice(7)).toEqual(expect.arrayContaining([`grp${group}-resolved-i${incidentOf(ids[0]).incident_id}-m${webhook}`, ...ids.map((id) => `inc${incidentOf(id).incident_id}-resolved-m${pd}`)]));
  });

  it('a grouped incident still escalates per its policy: step 2 goes out per incident, once', () => {
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    const policy = Number(fx.db.prepare('INSERT INTO escalation_policies (user_id, name, steps, repeat, repeat_every_minutes, created_at) VALUES (?, ?, ?, 0, 0, ?)')
      .run(fx.userId, 'On call', JSON.stringify([{ wait_minutes: 0, alert_method_ids: [webhook] }, { wait_minutes: 5, alert_method_ids: [slack] }]), T0).lastInsertRowid);
    const ids = sites(6);
    for (const id of ids) fx.db.prepare('UPDATE endpoints SET escalation_policy_id = ? WHERE url_id = ?').run(policy, id);
    for (const id of ids) down(id);
    expect(at(3)).toBe(1);
    expect(at(60)).toBe(0);
    expect(at(303)).toBe(6);
    expect(at(304)).toBe(0);
    expect(deliveries().slice(1).map((d) => [d.alert_method_id, d.step, d.group_id])).toEqual(ids.map(() => [slack, 2, null]));
  });
});
