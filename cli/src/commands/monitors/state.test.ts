import { describe, expect, it } from 'vitest';
import type { Dashboard, Region } from '@upfleet/proto/rest';
import { checkPlanLimits, type Change } from './state';

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
