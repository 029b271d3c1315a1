import { describe, expect, it } from 'vitest';
import { AgentTokenCreateBody, check, RegionCreateBody, ResultsCountQuery, SetPackageBody, firstError } from './index';


describe('admin bodies', () => {
  it('set-package needs an email and a package name', () => {
    expect(check(SetPackageBody, { email: ' a@b.co ', package: 'Starter' })).toEqual({ ok: true, data: { email: 'a@b.co', package: 'Starter' } });
    expect(firstError(SetPackageBody, { email: 'a@b.co' })).toBe('email and package are required');
    expect(firstError(SetPackageBody, { email: ' ', package: 'Starter' })).toBe('email and package are required');
  });
  it('a region is 2 to 10 letters and a city a name', () => {
    expect(check(RegionCreateBody, { region: 'US', city: 'Virginia' })).toEqual({ ok: true, data: { region: 'US', city: 'Virginia', primary: false } });
    expect(firstError(RegionCreateBody, { region: 'U', city: 'Virginia' })).toBe('region must be 2 to 10 letters, e.g. US');
    expect(firstError(RegionCreateBody, { region: 'US', city: '1' })).toBe('city must be a name of 2 to 40 letters, e.g. Virginia');
    expect(firstError(RegionCreateBody, { region: 'US', city: 'Virginia', primary: 'yes' })).toBe('primary must be true or false');
  });
  it('an agent token expiry is a positive whole number of seconds (24 h when absent), or null for none; uses likewise (1 when absent)', () => {
    expect(check(AgentTokenCreateBody, { region: 'EU-Germany' })).toEqual({ ok: true, data: { region: 'EU-Germany', expires_in_seconds: 86_400, max_uses: 1 } });
    expect(check(AgentTokenCreateBody, { region: 'EU-Germany', expires_in_seconds: null, max_uses: null })).toEqual({
      ok: true, data: { region: 'EU-Germany', expires_in_seconds: null, max_uses: null },
    });
    expect(firstError(AgentTokenCreateBody, { region: 'EU-Germany', max_uses: 0 })).toBe('max_uses must be a positive whole number');
    expect(check(AgentTokenCreateBody, { region: 'EU-Germany', expires_in_seconds: 3600 }).ok).toBe(true);
    for (const bad of [0, -1, 1.5, '60']) {
      expect(firstError(AgentTokenCreateBody, { region: 'EU-Germany', expires_in_seconds: bad })).toBe('expires_in_seconds must be a positive whole number');
    }
  });
  it('the results count takes an optional numeric endpoint_id', () => {
    expect(check(ResultsCountQuery, {})).toEqual({ ok: true, data: {} });
    expect(check(ResultsCountQuery, { endpoint_id: '42' })).toEqual({ ok: true, data: { endpoint_id: 42 } });
    expect(check(ResultsCountQuery, { endpoint_id: 'x' }).ok).toBe(false);
  });
});
