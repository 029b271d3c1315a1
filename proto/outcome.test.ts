// The one down rule: failed checks and non-2xx HTTP answers are down, unless the check's own
// assertions accepted the status (phase 'asserted'); a failed assertion is down on any status.
import { describe, expect, it } from 'vitest';
import { downCause, isDownResult, PHASE_ASSERTED } from './outcome';

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

describe('downCause', () => {
  it('names a browser check\'s failing step and its reason, a timeout too', () => {
    expect(downCause({ ok: false, status_code: 200, phase: 'step', error: 'step 2 (click #buy): element not found', failed_action: 'click' }, 'Germany'))
      .toBe('step 2 (click #buy): element not found from Germany');
    expect(downCause({ ok: false, status_code: 0, phase: 'timeout', error: 'step 3 (wait_for text=Paid): timeout after 30000 ms', failed_action: 'wait_for' }, 'Germany'))
      .toBe('step 3 (wait_for text=Paid): timeout after 30000 ms from Germany');
    // other kinds keep their short forms
    expect(downCause({ ok: false, status_code: 0, phase: 'timeout', error: 'timed out after 5000 ms' }, 'Germany')).toBe('timeout after 5 s from Germany');
  });
});
