import { describe, expect, it } from 'vitest';
import {
  CHECK_KINDS, DEFAULT_RETENTION_DAYS, GRAPH_MAX_POINTS, MAX_RETENTION_DAYS, buildCheckId, checkTimeoutMs, clampRetentionDays,
  graphStepSeconds, kindName, parseCheckId,
} from './checks';

describe('check ids', () => {
  it('builds <endpoint_id>:<kind>:<region> and parses it back', () => {
    for (const kind of Object.keys(CHECK_KINDS) as Array<keyof typeof CHECK_KINDS>) {
      const id = buildCheckId(42, kind, 'US-Virginia');
      expect(id).toBe(`42:${CHECK_KINDS[kind]}:US-Virginia`);
      expect(parseCheckId(id)).toEqual({ endpointId: 42, kind, region: 'US-Virginia' });
    }
  });

  it('refuses ids with an unknown kind, no region or a non-positive endpoint', () => {
    for (const bad of ['42:smtp:EU-Germany', '42:http:', '0:http:EU-Germany', 'x:http:EU-Germany', '42-http-EU-Germany']) {
      expect(parseCheckId(bad), bad).toBeNull();
    }
  });

  it('names the proto kinds and nothing else', () => {
    expect(kindName('CHECK_KIND_TLS')).toBe('tls');
    expect(kindName('CHECK_KIND_UNSPECIFIED')).toBeNull();
    expect(kindName('toString')).toBeNull();
  });
});

describe('checkTimeoutMs', () => {
  it('ends a check a second before its next run, within 2 s and 30 s', () => {
    expect(checkTimeoutMs(1)).toBe(2_000);
    expect(checkTimeoutMs(10)).toBe(9_000);
    expect(checkTimeoutMs(60)).toBe(30_000);
  });
});

describe('clampRetentionDays', () => {
  it('keeps whole plan days within 1..3650 and gives unset ones the Free plan days', () => {
    expect(clampRetentionDays(90)).toBe(90);
    expect(clampRetentionDays(90.7)).toBe(90);
    expect(clampRetentionDays(0.5)).toBe(1);
    expect(clampRetentionDays(99_999)).toBe(MAX_RETENTION_DAYS);
    expect(clampRetentionDays(0)).toBe(DEFAULT_RETENTION_DAYS);
    expect(clampRetentionDays(Number.NaN)).toBe(DEFAULT_RETENTION_DAYS);
  });
});

describe('graphStepSeconds', () => {
  it('picks the smallest round step that keeps a range within 500 points', () => {
    const day = 86_400_000;
    expect(graphStepSeconds(0, 3_600_000)).toBe(10);
    expect(graphStepSeconds(0, day)).toBe(180);
    expect(graphStepSeconds(0, 7 * day)).toBe(1800);
    for (const range of [1, 60_000, day, 90 * day, 400 * day, 4000 * day]) {
      expect(range / 1000 / graphStepSeconds(0, range)).toBeLessThanOrEqual(GRAPH_MAX_POINTS);
    }
  });
});
