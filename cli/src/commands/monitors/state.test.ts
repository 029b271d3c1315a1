import { describe, expect, it } from 'vitest';
import type { Dashboard, Endpoint, Region } from '@upfleet/proto/rest';
import { checkPlanLimits, currentMonitors, planChanges, readMonitorsFile, toYaml, type Change } from './state';

const regions: Region[] = [
  { region_id: 1, region: 'EU', city: 'Germany', primary_region: true },
  { region_id: 2, region: 'US', city: 'Virginia', primary_region: false },
];
const plan = { package_name: 'Narrow', max_endpoints: 10, max_regions: 2, multi_region: false, ping_host: false, cert_expiry: false, response_code: true, response_time: false } as Dashboard;
const create = (regionKeys: string[]): Change => ({
  action: 'create', name: 'Shop', url_id: null, fields: [],
  monitor: { name: 'Shop', url: 'https://shop.example.com/', description: '', regions: regionKeys, features: ['response_code'], monitoring: true, alert_thresholds: [] },
});

describe('checkPlanLimits (the monitors dry run) applies the server\'s plan rules', () => {
  it('refuses a region other than the primary on a plan without multi_region, with the server\'s message', () => {
    expect(() => checkPlanLimits('monitors.yaml', [create(['US-Virginia'])], 0, plan, regions)).toThrow(
      'monitors.yaml: monitor "Shop": regions: Your Narrow plan monitors from the primary region EU - Germany only. Please upgrade to select more regions.',
    );
    expect(() => checkPlanLimits('monitors.yaml', [create(['EU-Germany'])], 0, plan, regions)).not.toThrow();
  });
});

describe('monitors export/apply carry heartbeats', () => {
  const regionsList: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
  const beat = (id: number, name: string, check: Record<string, unknown>) => ({
    url_id: id, guid: `g${id}`, name, url: `heartbeat://${id}`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
    response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '2026-01-01T00:00:00Z',
    kind: 'heartbeat', ping_url: `https://x.example.com/ping/t${id}`, ...check,
  }) as unknown as Endpoint;

  it('exports period, cron, timezone and grace (never the ping URL); applying the export changes nothing; an edited cron is an update', () => {
    const current = currentMonitors([beat(1, 'Backup', { period_seconds: 3600, grace_seconds: 300 }), beat(2, 'Nightly', { cron: '0 3 * * *', timezone: 'Europe/Berlin', grace_seconds: 600 })], new Map(), regionsList);
    const yaml = toYaml(current, '');
    expect(yaml).toContain('period_seconds: 3600');
    expect(yaml).toContain('cron: 0 3 * * *');
    expect(yaml).toContain('timezone: Europe/Berlin');
    expect(yaml).not.toContain('ping');
    const again = readMonitorsFile('m.yaml', yaml, regionsList);
    expect(planChanges('m.yaml', again, current, false).map((c) => c.action)).toEqual(['unchanged', 'unchanged']);
    const edited = readMonitorsFile('m.yaml', yaml.replace('0 3 * * *', '30 4 * * *'), regionsList);
    expect(planChanges('m.yaml', edited, current, false).map((c) => [c.action, c.fields])).toEqual([['unchanged', []], ['update', ['check']]]);
  });

  it('refuses a heartbeat without a schedule, with the API\'s message', () => {
    expect(() => readMonitorsFile('m.yaml', 'monitors:\n  - name: Job\n    kind: heartbeat\n', regionsList)).toThrow('A heartbeat needs period_seconds or cron');
  });
});

describe('monitors export/apply carry the escalation policy and the dependency', () => {
  const regionsList: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
  const site = (id: number, name: string, extra: Record<string, unknown> = {}) => ({
    url_id: id, guid: `g${id}`, name, url: `https://${name.toLowerCase()}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
    response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '2026-01-01T00:00:00Z', kind: 'http',
    escalation_policy_id: null, depends_on: null, ...extra,
  }) as unknown as Endpoint;

  it('exports them when set, applying the export changes nothing, a file that leaves them out keeps them, a changed one is an update', () => {
    const current = currentMonitors([site(1, 'Router'), site(2, 'Shop', { escalation_policy_id: 7, depends_on: 1 })], new Map(), regionsList);
    const yaml = toYaml(current, '');
    expect(yaml).toContain('escalation_policy_id: 7');
    expect(yaml).toContain('depends_on: 1');
    expect(planChanges('m.yaml', readMonitorsFile('m.yaml', yaml, regionsList), current, false).map((c) => c.action)).toEqual(['unchanged', 'unchanged']);
    const silent = readMonitorsFile('m.yaml', yaml.replace(/ {4}escalation_policy_id: 7\n/, '').replace(/ {4}depends_on: 1\n/, ''), regionsList);
    expect(planChanges('m.yaml', silent, current, false).map((c) => c.action)).toEqual(['unchanged', 'unchanged']);
    const moved = readMonitorsFile('m.yaml', yaml.replace('escalation_policy_id: 7', 'escalation_policy_id: 8').replace('depends_on: 1', 'depends_on: null'), regionsList);
    expect(planChanges('m.yaml', moved, current, false).map((c) => [c.action, c.fields])).toEqual([['unchanged', []], ['update', ['escalation_policy_id', 'depends_on']]]);
    expect(moved[1]).toMatchObject({ escalation_policy_id: 8, depends_on: null });
  });
});

describe('monitors export/apply carry SLOs', () => {
  const regionsList: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
  const site = (id: number, name: string, slo: Record<string, unknown>) => ({
    url_id: id, guid: `g${id}`, name, url: `https://${name.toLowerCase()}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
    response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '2026-01-01T00:00:00Z', kind: 'http', ...slo,
  }) as unknown as Endpoint;

  it('exports slo_target and a window other than 30 days; applying the export changes nothing; a changed target is an update', () => {
    const current = currentMonitors([site(1, 'Shop', { slo_target: 99.9, slo_window_days: 28 }), site(2, 'Blog', { slo_window_days: 30 })], new Map(), regionsList);
    const yaml = toYaml(current, '');
    expect(yaml).toContain('slo_target: 99.9');
    expect(yaml).toContain('slo_window_days: 28');
    expect(yaml.match(/slo_/g)).toHaveLength(2); // Blog: no target, the default window
    const again = readMonitorsFile('m.yaml', yaml, regionsList);
    expect(planChanges('m.yaml', again, current, false).map((c) => c.action)).toEqual(['unchanged', 'unchanged']);
    const edited = readMonitorsFile('m.yaml', yaml.replace('slo_target: 99.9', 'slo_target: 99.5'), regionsList);
    expect(planChanges('m.yaml', edited, current, false).map((c) => [c.action, c.fields])).toEqual([['update', ['slo']], ['unchanged', []]]);
    expect(() => readMonitorsFile('m.yaml', yaml.replace('slo_target: 99.9', 'slo_target: 100'), regionsList)).toThrow('slo_target must be a percentage above 0 and below 100');
  });
});

describe('monitors export/apply carry browser checks', () => {
  const regionsList: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
  const browser = {
    url_id: 5, guid: 'g5', name: 'Login', url: 'https://app.example.com/login', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
    response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '2026-01-01T00:00:00Z',
    kind: 'browser', timeout_seconds: 45,
    steps: [{ action: 'fill', selector: '#user', value: 'ada' }, { action: 'fill', selector: '#pw', secret: true }, { action: 'click', selector: 'role=button[name="Sign in"]' }],
  } as unknown as Endpoint;

  it('exports the url, steps and timeout (a secret fill without its value); applying the export changes nothing; a file step is an update', () => {
    const current = currentMonitors([browser], new Map(), regionsList);
    const yaml = toYaml(current, '');
    expect(yaml).toContain('kind: browser');
    expect(yaml).toContain('url: https://app.example.com/login');
    expect(yaml).toContain('timeout_seconds: 45');
    expect(yaml).toContain('selector: "#pw"');
    const again = readMonitorsFile('m.yaml', yaml, regionsList);
    expect(again[0].check).toMatchObject({ kind: 'browser', timeout_seconds: 45 });
    expect(again[0].url).toBe('https://app.example.com/login');
    expect(planChanges('m.yaml', again, current, false).map((c) => c.action)).toEqual(['unchanged']);
    const edited = readMonitorsFile('m.yaml', yaml.replace('selector: "#user"', 'selector: "#email"'), regionsList);
    expect(planChanges('m.yaml', edited, current, false).map((c) => [c.action, c.fields])).toEqual([['update', ['check']]]);
  });

  it('refuses a bad step with the API\'s message naming it', () => {
    expect(() => readMonitorsFile('m.yaml', 'monitors:\n  - name: B\n    kind: browser\n    url: https://b.example.com/\n    steps:\n      - action: click\n', regionsList))
      .toThrow('Step 1 (click): selector is required');
  });
});
