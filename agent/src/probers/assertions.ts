// The assertions of a check (http, dns) judged on the agent: the one rule is proto/assertions.ts
// (`failedAssertion`, shared with the control plane's validation); here a `matches` regex runs in a
// vm context with a time bound, so a catastrophic pattern costs at most LIMITS_CHECK.regexTimeMs.
import vm from 'node:vm';
import type { AssertionSpec } from '@upfleet/proto';
import { failedAssertion, LIMITS_CHECK, type Assertion, type CheckAnswer, type RegexTest } from '@upfleet/proto/assertions';

const context = vm.createContext({});
const tester = new vm.Script('re.test(text)');

/** A regex test bounded in pattern length (validated before) and in time. */
export const boundedRegexTest: RegexTest = (pattern, text) => {
  const re = new RegExp(pattern);
  context.re = re;
  context.text = text.slice(0, LIMITS_CHECK.assertedBodyBytes);
  try {
    return tester.runInContext(context, { timeout: LIMITS_CHECK.regexTimeMs }) as boolean;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw err;
  } finally {
    context.re = undefined;
    context.text = undefined;
  }
};

/** The first failed assertion's reason, or null when all pass (or there are none). */
export function firstFailedAssertion(assertions: readonly AssertionSpec[] | undefined, answer: CheckAnswer): string | null {
  for (const a of assertions ?? []) {
    let reason: string | null;
    try {
      reason = failedAssertion(a as Assertion, answer, boundedRegexTest);
    } catch (err) {
      reason = `assertion on ${a.source} could not run: ${(err as Error).message}`;
    }
    if (reason) return reason;
  }
  return null;
}
