// Escalation policies, reminders, acknowledgement and dependencies on real SQLite with a fake clock:
// incidents are opened and resolved through the evaluator (as a heartbeat verdict would), the
// worker's passes are run by hand after moving the clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createAlertingFixture, type AlertingFixture } from '../testing/alerting';
import { createEscalator, type Escalator } from './escalation';
import { createEscalationRepo } from './escalation-repo';
import { createAlertEvaluator, type AlertEvaluator } from './evaluator';
import { createHandlingRepo, type HandlingRepo } from './handling-repo';
import { createAlertingRepo, type AlertingRepo } from './repo';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const MIN = 60_000;

describe('escalation', () => {
  let fx: AlertingFixture;
  let clock: number;
  let repo: AlertingRepo;
  let escalator: Escalator;
  let ev: AlertEvaluator;
  let handling: HandlingRepo;

  const build = () => {
    repo = createAlertingRepo(fx.db);
    handling = createHandlingRepo(fx.db);
    escalator = createEscalator({ repo, esc: createEscalationRepo(fx.db), logger, now: () => clock });
    ev = createAlertEvaluator({ repo, logger, regionLabel: (k) => k, primaryRegion: () => 'EU-Germany', now: () => clock, escalator });
  };
  const at = (minutes: number) => {
    clock = T0 + minutes * MIN;
    return escalator.tick();
  };
  const deliveries = () => fx.db.prepare('SELECT * FROM alert_deliveries ORDER BY delivery_id').all() as Array<Record<string, any>>;
  const sent = () => deliveries().map((d) => [d.alert_method_id, d.event, d.step]);
  const events = (incidentId: number) => fx.db.prepare('SELECT type, step, alert_method_id, detail FROM incident_events WHERE incident_id = ? ORDER BY event_id')
    .all(incidentId) as Array<Record<string, any>>;
  const incident = (urlId: number) => fx.db.prepare('SELECT * FROM incidents WHERE url_id = ? ORDER BY incident_id DESC').get(urlId) as Record<string, any>;
  const policy = (steps: Array<[number, number[]]>, repeat = 0, every = 0): number =>
    Number(fx.db.prepare('INSERT INTO escalation_policies (user_id, name, steps, repeat, repeat_every_minutes, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(fx.userId, 'On call', JSON.stringify(steps.map(([w, ids]) => ({ wait_minutes: w, alert_method_ids: ids }))), repeat, every, T0).lastInsertRowid);
  const usePolicy = (urlId: number, policyId: number | null) => fx.db.prepare('UPDATE endpoints SET escalation_policy_id = ? WHERE url_id = ?').run(policyId, urlId);
  const dependsOn = (urlId: number, parent: number) => fx.db.prepare('UPDATE endpoints SET depends_on = ? WHERE url_id = ?').run(parent, urlId);
  const down = (urlId: number) => ev.pushed(urlId, true, 'no ping', clock);
  const up = (urlId: number) => ev.pushed(urlId, false, '', clock);

  beforeEach(() => {
    fx = createAlertingFixture();
    clock = T0;
    build();
  });
  afterEach(() => fx.close());

  it('pages step 1 at once, step 2 only once its wait has passed, each with its step and key', () => {
    const site = fx.addEndpoint();
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    usePolicy(site, policy([[0, [webhook]], [5, [slack]]]));
    down(site);
    const id = incident(site).incident_id;
    expect(sent()).toEqual([[webhook, 'opened', 1]]);
    expect(deliveries()[0].idempotency_key).toBe(`inc${id}-s1-r0-m${webhook}`);
    expect(at(4.9)).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(at(5)).toBe(1);
    expect(sent()).toEqual([[webhook, 'opened', 1], [slack, 'opened', 2]]);
    expect(JSON.parse(deliveries()[1].payload)).toMatchObject({ type: 'incident.opened', step: 2, incident: { id } });
    expect(events(id)).toEqual([{ type: 'escalated', step: 2, alert_method_id: null, detail: 'Escalated to step 2' }]);
    expect(at(60)).toBe(0);
  });

  it('a first step that waits sends nothing at the opening', () => {
    const site = fx.addEndpoint();
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    usePolicy(site, policy([[3, [webhook]]]));
    down(site);
    expect(sent()).toEqual([]);
    expect(at(2)).toBe(0);
    expect(at(3)).toBe(1);
    expect(sent()).toEqual([[webhook, 'opened', 1]]);
  });

  it('repeats the last step as reminders, repeat times, every repeat_every_minutes, then stops', () => {
    const site = fx.addEndpoint();
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    usePolicy(site, policy([[0, [webhook]], [5, [slack]]], 2, 10));
    down(site);
    const id = incident(site).incident_id;
    at(5);
    expect(at(14)).toBe(0);
    expect(at(15)).toBe(1);
    expect(at(25)).toBe(1);
    expect(at(500)).toBe(0);
    expect(sent()).toEqual([[webhook, 'opened', 1], [slack, 'opened', 2], [slack, 'reminder', 2], [slack, 'reminder', 2]]);
    expect(deliveries().map((d) => d.idempotency_key).slice(2)).toEqual([`inc${id}-s2-r1-m${slack}`, `inc${id}-s2-r2-m${slack}`]);
    expect(JSON.parse(deliveries()[3].payload)).toMatchObject({ type: 'incident.reminder', reminder: { n: 2, of: 2 } });
    expect(events(id).map((e) => [e.type, e.detail])).toEqual([['escalated', 'Escalated to step 2'], ['reminder', 'Reminder 1 of 2'], ['reminder', 'Reminder 2 of 2']]);
  });

  it('acknowledgement stops further steps and reminders, and tells the Slack methods notified once', () => {
    const site = fx.addEndpoint();
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    usePolicy(site, policy([[0, [slack]], [5, [webhook]]], 3, 5));
    down(site);
    const id = incident(site).incident_id;
    clock = T0 + 2 * MIN;
    expect(handling.acknowledge(fx.userId, id, fx.userId, clock)).toBe(true);
    expect(handling.acknowledge(fx.userId, id, fx.userId, clock)).toBe(false);
    expect(at(2)).toBe(1);
    expect(at(3)).toBe(0);
    expect(at(100)).toBe(0);
    expect(sent()).toEqual([[slack, 'opened', 1], [slack, 'acknowledged', null]]);
    const ack = deliveries()[1];
    expect(ack.idempotency_key).toBe(`inc${id}-ack-m${slack}`);
    expect(JSON.parse(ack.payload)).toMatchObject({ type: 'incident.acknowledged', acknowledged_by: expect.stringMatching(/^u/) });
    expect(incident(site)).toMatchObject({ acknowledged_at: T0 + 2 * MIN, acknowledged_by: fx.userId });
  });

  it('a resolved incident cannot be acknowledged', () => {
    const site = fx.addEndpoint();
    fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    down(site);
    up(site);
    expect(handling.acknowledge(fx.userId, incident(site).incident_id, fx.userId, clock)).toBe(false);
    expect(incident(site).acknowledged_at).toBeNull();
  });

  it('the resolve message goes to every method that was notified, and to no other', () => {
    const site = fx.addEndpoint();
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    const email = fx.addMethod('email', { email_address: 'oncall@example.com' });
    usePolicy(site, policy([[0, [webhook]], [5, [slack]], [30, [email]]]));
    down(site);
    at(6);
    up(site);
    const id = incident(site).incident_id;
    expect(sent()).toEqual([[webhook, 'opened', 1], [slack, 'opened', 2], [webhook, 'resolved', null], [slack, 'resolved', null]]);
    expect(deliveries().slice(2).map((d) => d.idempotency_key)).toEqual([`inc${id}-resolved-m${webhook}`, `inc${id}-resolved-m${slack}`]);
    expect(at(60)).toBe(0);
  });

  it('skips a deleted, a disabled and another workspace\'s method with a timeline entry, and pages the rest', () => {
    const site = fx.addEndpoint();
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    const email = fx.addMethod('email', { email_address: 'oncall@example.com' }, false);
    // A method of another workspace in the same database.
    const stranger = Number(fx.db.prepare("INSERT INTO users (username, email, password_hash, package_id) SELECT 'other', 'other@example.com', 'x', package_id FROM users WHERE id = ?")
      .run(fx.userId).lastInsertRowid);
    const foreignId = fx.addMethod('teams', { webhook_url: 'https://teams.example.com/x' });
    fx.db.prepare('UPDATE alert_methods SET user_id = ? WHERE alert_method_id = ?').run(stranger, foreignId);
    usePolicy(site, policy([[0, [webhook, slack, email, foreignId]]]));
    fx.db.prepare('DELETE FROM alert_methods WHERE alert_method_id = ?').run(slack);
    down(site);
    const id = incident(site).incident_id;
    expect(sent()).toEqual([[webhook, 'opened', 1]]);
    expect(events(id)).toEqual([
      { type: 'method_skipped', step: 1, alert_method_id: slack, detail: 'deleted or not an alert method of this workspace' },
      { type: 'method_skipped', step: 1, alert_method_id: email, detail: 'disabled' },
      { type: 'method_skipped', step: 1, alert_method_id: foreignId, detail: 'deleted or not an alert method of this workspace' },
    ]);
  });

  it('without a policy every enabled method hears the opening at once, as before', () => {
    const site = fx.addEndpoint();
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    down(site);
    const id = incident(site).incident_id;
    expect(deliveries().map((d) => [d.alert_method_id, d.idempotency_key, d.step])).toEqual([
      [webhook, `inc${id}-opened-m${webhook}`, null], [slack, `inc${id}-opened-m${slack}`, null],
    ]);
    expect(at(100)).toBe(0);
    up(site);
    expect(sent().slice(2)).toEqual([[webhook, 'resolved', null], [slack, 'resolved', null]]);
  });

  it('a second pass over the same due step queues nothing: the position moved and the keys exist', () => {
    const site = fx.addEndpoint();
    const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    usePolicy(site, policy([[0, [webhook]], [5, [slack]]]));
    down(site);
    clock = T0 + 5 * MIN;
    // Two workers over one database (a restart racing the old process): one fires the step.
    const second = createEscalator({ repo, esc: createEscalationRepo(fx.db), logger, now: () => clock });
    expect(escalator.tick() + second.tick()).toBe(1);
    expect(sent()).toEqual([[webhook, 'opened', 1], [slack, 'opened', 2]]);
  });

  describe('dependencies', () => {
    it('a child failing while its parent is down opens a suppressed incident that sends nothing', () => {
      const parent = fx.addEndpoint({ name: 'Router' });
      const child = fx.addEndpoint({ name: 'Shop' });
      dependsOn(child, parent);
      const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
      down(parent);
      const parentIncident = incident(parent).incident_id;
      down(child);
      const c = incident(child);
      expect(c.suppressed_by).toBe(parentIncident);
      expect(sent()).toEqual([[webhook, 'opened', null]]);
      expect(events(c.incident_id)).toEqual([{ type: 'suppressed', step: null, alert_method_id: null, detail: `Suppressed: the endpoint it depends on is down (incident ${parentIncident})` }]);
      expect(at(30)).toBe(0);
    });

    it('when the parent resolves, a child still down starts its own notifications, its policy from step 1', () => {
      const parent = fx.addEndpoint({ name: 'Router' });
      const child = fx.addEndpoint({ name: 'Shop' });
      dependsOn(child, parent);
      const webhook = fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
      const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
      usePolicy(child, policy([[0, [slack]], [10, [webhook]]]));
      down(parent);
      down(child);
      const childId = incident(child).incident_id;
      at(20);
      up(parent);
      expect(sent()).toEqual([[webhook, 'opened', null], [slack, 'opened', null], [webhook, 'resolved', null], [slack, 'resolved', null]]);
      expect(at(21)).toBe(1);
      expect(sent().slice(4)).toEqual([[slack, 'opened', 1]]);
      expect(deliveries()[4].incident_id).toBe(childId);
      expect(at(30)).toBe(0);
      expect(at(31)).toBe(1);
      up(child);
      expect(sent().slice(6)).toEqual([[webhook, 'resolved', null], [slack, 'resolved', null]]);
    });

    it('a child that recovered while its parent was down resolves silently', () => {
      const parent = fx.addEndpoint({ name: 'Router' });
      const child = fx.addEndpoint({ name: 'Shop' });
      dependsOn(child, parent);
      fx.addMethod('webhook', { webhook_url: 'https://hooks.example.com/x' });
      down(parent);
      down(child);
      up(child);
      expect(incident(child).resolved_at).not.toBeNull();
      up(parent);
      at(10);
      expect(deliveries().filter((d) => d.incident_id === incident(child).incident_id)).toEqual([]);
    });
  });
});
