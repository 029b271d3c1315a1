// The assertions of a check (http, dns) judged on the agent: the one rule is proto/assertions.ts
// (`failedAssertion`, shared with the control plane's validation); here a `matches` regex runs in a
// vm context with a time bound, LIMITS_CHECK.regexTimeMs for one regex and
// LIMITS_CHECK.assertionsTimeMs for all of a check's, so many slow patterns cannot add up.
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';
import type { AssertionSpec } from '@upfleet/proto';
import { failedAssertion, LIMITS_CHECK, type Assertion, type CheckAnswer, type RegexTest } from '@upfleet/proto/assertions';

const context = vm.createContext({});
const tester = new vm.Script('re.test(text)');

/** A regex test bounded in pattern length (validated before) and in time (whole milliseconds, at least 1). */
export function regexTestWithin(pattern: string, text: string, timeoutMs: number): boolean | 'timeout' {
  if (timeoutMs < 1) return 'timeout';
  const re = new RegExp(pattern);
  context.re = re;
  context.text = text.slice(0, LIMITS_CHECK.assertedBodyBytes);
  try {
    return tester.runInContext(context, { timeout: Math.floor(timeoutMs) }) as boolean;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw err;
  } finally {
    context.re = undefined;
    context.text = undefined;
  }
}

/** The reason a check fails when its regexes used up their shared time. */
export const ASSERTIONS_TOO_SLOW = `assertions took too long (over ${LIMITS_CHECK.assertionsTimeMs} ms in total)`;

/** The first failed assertion's reason, or null when all pass (or there are none). */
export function firstFailedAssertion(
  assertions: readonly AssertionSpec[] | undefined, answer: CheckAnswer, now: () => number = () => performance.now(),
): string | null {
  const deadline = now() + LIMITS_CHECK.assertionsTimeMs;
  let outOfTime = false;
  const regexTest: RegexTest = (pattern, text) => {
    const left = deadline - now();
    const r = regexTestWithin(pattern, text, Math.min(LIMITS_CHECK.regexTimeMs, left));
    if (r === 'timeout' && left < LIMITS_CHECK.regexTimeMs) outOfTime = true;
    return r;
  };
  for (const a of assertions ?? []) {
    let reason: string | null;
    try {
      reason = failedAssertion(a as Assertion, answer, regexTest);
    } catch (err) {
      reason = `assertion on ${a.source} could not run: ${(err as Error).message}`;
    }
    if (outOfTime) return ASSERTIONS_TOO_SLOW;
    if (reason) return reason;
  }
  return null;
}
