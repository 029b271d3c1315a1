// The time bound of a check's regexes on the agent: one regex stops at LIMITS_CHECK.regexTimeMs,
// and all of a check's together at LIMITS_CHECK.assertionsTimeMs, so twenty slow patterns that each
// stay under the first bound cannot add up to most of a second per run.
import { describe, expect, it } from 'vitest';
import type { AssertionSpec } from '@upfleet/proto';
import { LIMITS_CHECK } from '@upfleet/proto/assertions';
import { ASSERTIONS_TOO_SLOW, firstFailedAssertion } from './assertions';

const matches = (target: string): AssertionSpec => ({ source: 'body', property: '', comparison: 'matches', target });

describe('assertion time per check', () => {
  it('fails the check once its regexes together used the per-check budget', () => {
    // A clock where each regex seems to take 30 ms: each stays under the per-regex bound.
    let t = 0;
    const now = () => (t += 30);
    const twenty = Array.from({ length: LIMITS_CHECK.assertions }, () => matches('^ok'));
    expect(firstFailedAssertion(twenty, { body: 'ok' }, now)).toBe(ASSERTIONS_TOO_SLOW);
    expect(t).toBeLessThan(30 * 10); // it stopped early, not after all twenty
  });

  it('passes when the regexes fit in the budget', () => {
    const twenty = Array.from({ length: LIMITS_CHECK.assertions }, () => matches('^ok'));
    expect(firstFailedAssertion(twenty, { body: 'ok' })).toBeNull();
  });
});
