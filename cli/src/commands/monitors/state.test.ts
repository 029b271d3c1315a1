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
