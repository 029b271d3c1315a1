import { describe, expect, it } from 'vitest';
import { check, EndpointCreateBody, EndpointToggleBody, GraphQuery, firstError } from './index';

const body = (over: Record<string, unknown> = {}) => ({ name: 'Example', url: 'https://example.com', ...over });

describe('EndpointCreateBody', () => {
  it('passes a minimal body with the SPEC defaults: response_code on, no regions (the primary), empty description', () => {
    expect(check(EndpointCreateBody, body())).toEqual({
      ok: true,
      data: { name: 'Example', url: 'https://example.com/', description: '', regions: [], ping_host: false, cert_expiry: false, response_code: true, response_time: false },
    });
  });
  it('de-duplicates regions and keeps the given flags', () => {
    const r = check(EndpointCreateBody, body({ regions: ['EU-Germany', 'EU-Germany'], response_code: false, ping_host: true, description: null }));
    expect(r).toMatchObject({ ok: true, data: { regions: ['EU-Germany'], response_code: false, ping_host: true, description: '' } });
  });
  it('fails each rule with its message', () => {
    expect(firstError(EndpointCreateBody, body({ name: '' }))).toBe('Name is required');
    expect(firstError(EndpointCreateBody, body({ name: 'n'.repeat(201) }))).toBe('Name must be at most 200 characters long');
    expect(firstError(EndpointCreateBody, body({ url: undefined }))).toBe('URL is required');
    expect(firstError(EndpointCreateBody, body({ url: 'not a url' }))).toBe('Please enter a valid URL');
    expect(firstError(EndpointCreateBody, body({ url: 'ftp://example.com' }))).toBe('URL must start with http:// or https://');
    expect(firstError(EndpointCreateBody, body({ url: 'javascript:alert(1)' }))).toBe('URL must start with http:// or https://');
    expect(firstError(EndpointCreateBody, body({ url: 'https://user:pw@example.com' }))).toBe('URL must not contain a username or password');
    expect(firstError(EndpointCreateBody, body({ description: 5 }))).toBe('Description must be text');
    expect(firstError(EndpointCreateBody, body({ response_code: 'yes' }))).toBe('response_code must be true or false');
    expect(firstError(EndpointCreateBody, body({ regions: 'EU-Germany' }))).toBe('Regions must be a list of region names');
    expect(firstError(EndpointCreateBody, body({ regions: [1] }))).toBe('Regions must be a list of region names');
  });
});

describe('EndpointToggleBody', () => {
  it('takes an optional boolean', () => {
    expect(check(EndpointToggleBody, {})).toEqual({ ok: true, data: {} });
    expect(check(EndpointToggleBody, { monitoring_enabled: false })).toEqual({ ok: true, data: { monitoring_enabled: false } });
    expect(firstError(EndpointToggleBody, { monitoring_enabled: 'no' })).toBe('monitoring_enabled must be true or false');
  });
});

describe('GraphQuery', () => {
  it('reads hours or an explicit range from query strings', () => {
    expect(check(GraphQuery, {})).toEqual({ ok: true, data: {} });
    expect(check(GraphQuery, { hours: '24' })).toEqual({ ok: true, data: { hours: 24 } });
    expect(check(GraphQuery, { timeFrom: '1000', timeTo: '2000' })).toEqual({ ok: true, data: { timeFrom: 1000, timeTo: 2000 } });
  });
  it('refuses a bad window with its message', () => {
    const range = 'timeFrom and timeTo must be millisecond timestamps with timeFrom before timeTo';
    expect(firstError(GraphQuery, { hours: '0' })).toBe('hours must be a positive number');
    expect(firstError(GraphQuery, { hours: 'abc' })).toBe('hours must be a positive number');
    expect(firstError(GraphQuery, { hours: ['1', '2'] })).toBe('hours must be a positive number');
    expect(firstError(GraphQuery, { timeFrom: '2000', timeTo: '1000' })).toBe(range);
    expect(firstError(GraphQuery, { timeFrom: '1000' })).toBe(range);
    expect(firstError(GraphQuery, { timeFrom: '-1', timeTo: '1000' })).toBe(range);
  });
});
