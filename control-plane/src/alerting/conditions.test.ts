// Tcp and dns results say whether their endpoint is down like http ones, and a failed
// assertion's reason is the incident's cause (and so the alert message's).
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '@upfleet/proto';
import { DOWN, observe } from './conditions';

const result = (over: Partial<CheckResult>): CheckResult => ({
  check_id: '1:http:EU-Germany', endpoint_id: 1, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: 1, ok: true, phase: '', error: '',
  status_code: 200, dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 0, total_ms: 10, cert_days_left: 0, cert_not_after_ms: 0,
  cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: 30, result_id: 'r', ...over,
});

describe('down condition for every main check kind', () => {
  it('a failed assertion is down with its reason, even with a 200', () => {
    const r = result({ ok: false, phase: 'assertion', error: 'body does not contain "ok"' });
    expect(observe(r, [], 'EU - Germany')).toEqual([{ condition: DOWN, failing: true, cause: 'body does not contain "ok" from EU - Germany' }]);
    const code = result({ ok: false, status_code: 503, phase: 'assertion', error: 'status_code 503, expected equals 200' });
    expect(observe(code, [], 'EU - Germany')[0].cause).toBe('status_code 503, expected equals 200 from EU - Germany');
  });
  it('tcp and dns results inform the down condition', () => {
    expect(observe(result({ kind: 'CHECK_KIND_TCP', status_code: 0, ok: false, phase: 'connect', error: 'connection refused' }), [], 'US - Virginia')).toEqual([
      { condition: DOWN, failing: true, cause: 'connection refused from US - Virginia' },
    ]);
    expect(observe(result({ kind: 'CHECK_KIND_DNS', status_code: 0 }), [], 'EU - Germany')).toEqual([{ condition: DOWN, failing: false, cause: '' }]);
    // ping and tls still inform their thresholds only
    expect(observe(result({ kind: 'CHECK_KIND_PING', ok: false }), [], 'EU - Germany')).toEqual([]);
  });
});
