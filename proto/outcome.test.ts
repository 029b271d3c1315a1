// The one down rule: failed checks and non-2xx HTTP answers are down, unless the check's own
// assertions accepted the status (phase 'asserted'); a failed assertion is down on any status.
import { describe, expect, it } from 'vitest';
import { isDownResult, PHASE_ASSERTED } from './outcome';

describe('isDownResult', () => {
  it('is down for a failed check, a non-2xx answer and a failed assertion on a 200; up for a 2xx and for a status the assertions accepted', () => {
    expect(isDownResult({ ok: false, status_code: 0, phase: 'connect' })).toBe(true);
    expect(isDownResult({ ok: true, status_code: 503 })).toBe(true);
    expect(isDownResult({ ok: true, status_code: 301 })).toBe(true);
    expect(isDownResult({ ok: false, status_code: 200, phase: 'assertion' })).toBe(true);
    expect(isDownResult({ ok: true, status_code: 204, phase: '' })).toBe(false);
    expect(isDownResult({ ok: true, status_code: 0 })).toBe(false); // tcp, dns, ping
    expect(isDownResult({ ok: true, status_code: 404, phase: PHASE_ASSERTED })).toBe(false);
    expect(isDownResult({ ok: false, status_code: 404, phase: PHASE_ASSERTED })).toBe(true);
  });
});
