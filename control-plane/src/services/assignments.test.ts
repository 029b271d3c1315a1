import { describe, expect, it } from 'vitest';
import { checksForEndpoint, ownerOf } from './assignments';

const base = { url_id: 7, url: 'https://example.com/', regions: ['EU-Germany', 'US-Virginia'], ping_host: false, cert_expiry: false, response_code: false, response_time: false, check_frequency_seconds: 60, retention_days: 90 };

describe('checksForEndpoint', () => {
  it('runs response_code and cert_expiry only from the primary region, response_time and ping from every selected one', () => {
    const ids = checksForEndpoint({ ...base, response_code: true, cert_expiry: true, response_time: true, ping_host: true }, 'EU-Germany').map((a) => a.check_id).sort();
    expect(ids).toEqual(['7:http:EU-Germany', '7:http:US-Virginia', '7:ping:EU-Germany', '7:ping:US-Virginia', '7:tls:EU-Germany']);
  });

  it('uses one HTTP check for response code and time in the same region, at the plan interval', () => {
    const checks = checksForEndpoint({ ...base, regions: ['EU-Germany'], response_code: true, response_time: true }, 'EU-Germany');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ kind: 'CHECK_KIND_HTTP', interval_seconds: 60, retention_days: 90, url: 'https://example.com/' });
  });

  it('skips the certificate check for plain http URLs', () => {
    expect(checksForEndpoint({ ...base, url: 'http://example.com/', cert_expiry: true }, 'EU-Germany')).toEqual([]);
  });
});

describe('ownerOf (rendezvous hashing)', () => {
  const checks = Array.from({ length: 3000 }, (_, i) => `${i}:http:EU-Germany`);

  it('spreads checks evenly and is stable for the same agent set', () => {
    const agents = ['a1', 'a2', 'a3'];
    const counts = new Map<string, number>();
    for (const c of checks) counts.set(ownerOf(c, agents)!, (counts.get(ownerOf(c, agents)!) ?? 0) + 1);
    for (const n of counts.values()) expect(n).toBeGreaterThan(800);
    expect(checks.map((c) => ownerOf(c, agents))).toEqual(checks.map((c) => ownerOf(c, [...agents].reverse())));
  });

  it('moves only the new agent\'s share when an agent joins, and only the lost agent\'s checks when one leaves', () => {
    const before = checks.map((c) => ownerOf(c, ['a1', 'a2']));
    const after = checks.map((c) => ownerOf(c, ['a1', 'a2', 'a3']));
    const moved = before.filter((o, i) => o !== after[i]);
    expect(after.filter((o, i) => o !== before[i]).every((o) => o === 'a3')).toBe(true);
    expect(moved.length / checks.length).toBeGreaterThan(0.25);
    expect(moved.length / checks.length).toBeLessThan(0.42);
    const lost = checks.map((c) => ownerOf(c, ['a1', 'a3']));
    lost.forEach((o, i) => {
      if (after[i] !== 'a2') expect(o).toBe(after[i]);
    });
  });
});
