import { describe, expect, it } from 'vitest';
import { downgradeEndpoint, endpointsToSwitchOff, planViolations, pricingLines, type PlanLimits } from './plan';
import { MESSAGES, type Package } from './rest';

const free = { package_name: 'Free', max_endpoints: 10, max_regions: 1, multi_region: false, ping_host: false, cert_expiry: false, response_code: true, response_time: false } satisfies PlanLimits;
const ctx = { primaryRegion: { key: 'EU-Germany', label: 'EU - Germany' } };

describe('planViolations', () => {
  it('answers nothing for an input within the plan', () => {
    expect(planViolations(free, { features: { response_code: true }, regions: ['EU-Germany'], endpoints: 10 }, ctx)).toEqual([]);
  });

  it('lists every refusal, features first (in the form\'s order), then regions, then the endpoint count', () => {
    const v = planViolations(free, { features: { response_time: true, ping_host: true }, regions: ['EU-Germany', 'US-Virginia'], endpoints: 11 }, ctx);
    expect(v.map((x) => [x.field, x.subject])).toEqual([
      ['ping_host', 'features'], ['response_time', 'features'], ['max_regions', 'regions'], ['multi_region', 'regions'], ['max_endpoints', 'endpoints'],
    ]);
    expect(v.map((x) => x.message)).toEqual([
      MESSAGES.featureNotInPlan('Ping Host'),
      MESSAGES.featureNotInPlan('Response Time'),
      MESSAGES.tooManyRegions(1, 'Free'),
      'Your Free plan monitors from the primary region EU - Germany only. Please upgrade to select more regions.',
      MESSAGES.tooManyEndpoints(10, 'Free'),
    ]);
  });

  it('answers each refusal with the status the API has always used: 400 for what an endpoint asks, 403 for what the account may not do', () => {
    const none = { ...free, max_members: 1, max_status_pages: 0, api_access: false, monitor_kinds: ['http' as const], check_frequency_seconds: 300 };
    const v = planViolations(none, { kind: 'tcp', interval: 60, features: { ping_host: true }, regions: ['US-Virginia'], endpoints: 11, apiAccess: true, members: 2, statusPages: 1 }, ctx);
    expect(Object.fromEntries(v.map((x) => [x.subject, x.status]))).toEqual({
      kind: 403, interval: 403, features: 400, regions: 400, endpoints: 400, api: 403, members: 403, status_pages: 403,
    });
  });

  it('refuses a non-primary region without multi_region even within max_regions', () => {
    expect(planViolations({ ...free, max_regions: 3 }, { regions: ['US-Virginia'] }, ctx).map((v) => v.field)).toEqual(['multi_region']);
  });
});

describe('downgradeEndpoint and endpointsToSwitchOff', () => {
  it('switches off what the plan lacks, keeps the primary region, and gives an endpoint left with no check Response Code', () => {
    const d = downgradeEndpoint(free, { ping_host: true, cert_expiry: false, response_code: false, response_time: true, regions: ['US-Virginia', 'EU-Germany'] }, ctx);
    expect(d).toEqual({
      next: { ping_host: false, cert_expiry: false, response_code: true, response_time: false, regions: ['EU-Germany'] },
      featuresRemoved: ['ping_host', 'response_time'],
      regionsRemoved: ['US-Virginia'],
      changed: true,
    });
    expect(downgradeEndpoint(free, { ping_host: false, cert_expiry: false, response_code: true, response_time: false, regions: ['EU-Germany'] }, ctx).changed).toBe(false);
  });

  it('switches off the newest endpoints over the limit', () => {
    const list = [1, 2, 3].map((i) => ({ url_id: i, created_at: `2026-01-0${i}` }));
    expect(endpointsToSwitchOff({ max_endpoints: 1 }, list).map((e) => e.url_id)).toEqual([3, 2]);
    expect(endpointsToSwitchOff({ max_endpoints: 3 }, list)).toEqual([]);
  });
});

describe('pricingLines', () => {
  it('sells what the plan is held to, from the same table', () => {
    const pro = { package_name: 'Pro', max_endpoints: 200, max_regions: 3, multi_region: true, check_frequency_seconds: 30, retention_days: 180, ssl_monitoring: true, advanced_alerts: true, api_access: true, ping_host: true, cert_expiry: true, response_code: true, response_time: true } as Package;
    expect(pricingLines(pro)).toEqual(['200 endpoints', 'Checks every 30 seconds', '3 regions (multi-region)', '180-day data retention', 'SSL certificate monitoring', 'SMS alerts', 'API access']);
  });
});
