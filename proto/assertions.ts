// Check kinds beyond GET: the endpoint kinds, an HTTP check's request options and the
// assertions on a check's answer, with the one rule that judges an assertion and says why it
// failed ("status_code 503, expected equals 200"). The control plane validates with the parsers here
// (proto/schemas/endpoints.ts) and the agent judges with `failedAssertion`. Browser-safe: no Node imports.

export const ENDPOINT_KINDS = ['http', 'tcp', 'dns', 'heartbeat', 'browser'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];
/** The kinds an endpoint can be created with. */
export const CREATABLE_KINDS = ['http', 'tcp', 'dns', 'heartbeat', 'browser'] as const satisfies readonly EndpointKind[];

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

export const ASSERTION_SOURCES = ['status_code', 'response_time', 'body', 'json_body', 'header', 'cert_days_left', 'answer'] as const;
export type AssertionSource = (typeof ASSERTION_SOURCES)[number];
export const ASSERTION_COMPARISONS = ['equals', 'not_equals', 'contains', 'not_contains', 'less_than', 'greater_than', 'matches'] as const;
export type AssertionComparison = (typeof ASSERTION_COMPARISONS)[number];

/** Sources whose value is a number (compared as numbers; contains/matches make no sense). */
export const NUMERIC_SOURCES: readonly AssertionSource[] = ['status_code', 'response_time', 'cert_days_left'];
/** What a DNS check can assert on: its answer (the records, one per line). */
export const DNS_SOURCES: readonly AssertionSource[] = ['answer'];
export const DNS_COMPARISONS: readonly AssertionComparison[] = ['equals', 'not_equals', 'contains', 'not_contains'];

/** A heartbeat's schedule bounds: a period of 60 s to 31 days, a grace up to 31 days. */
export const LIMITS_HEARTBEAT = {
  periodSecondsMin: 60,
  periodSecondsMax: 31 * 86400,
  graceSecondsMax: 31 * 86400,
  /** The last ping's body kept, in bytes. */
  bodyBytes: 10 * 1024,
} as const;

export const LIMITS_CHECK = {
  requestBodyBytes: 64 * 1024,
  headers: 50,
  headerValue: 4096,
  assertions: 20,
  assertionTarget: 1000,
  regexLength: 200,
  /** A `matches` regex runs at most this long on one answer (agent side). */
  regexTimeMs: 50,
  /** All of a check's regexes together run at most this long on one answer (agent side). */
  assertionsTimeMs: 100,
  /** The part of a body assertions look at (and a regex runs on). */
  assertedBodyBytes: 256 * 1024,
  timeoutSecondsMin: 1,
  timeoutSecondsMax: 60,
} as const;

/** Headers the agent sets itself or that would break the request framing. */
export const FORBIDDEN_HEADERS = ['content-length', 'transfer-encoding', 'connection', 'upgrade', 'keep-alive', 'expect', 'te'];

export interface Assertion {
  source: AssertionSource;
  /** JSON path (`$.items[0].id`) for json_body, header name for header; '' otherwise */
  property: string;
  comparison: AssertionComparison;
  target: string;
}

// ---- JSON path: `$`, `.name`, `['name']` / `["name"]`, `[0]` ----

export type JsonPathStep = string | number;

/** The steps of a JSON path, or null when it is not one this subset reads. */
export function parseJsonPath(path: string): JsonPathStep[] | null {
  if (!path.startsWith('$')) return null;
  const steps: JsonPathStep[] = [];
  let i = 1;
  while (i < path.length) {
    const rest = path.slice(i);
    let m = /^\.([A-Za-z_$][\w$-]*)/.exec(rest);
    if (m) { steps.push(m[1]); i += m[0].length; continue; }
    m = /^\[(\d{1,9})\]/.exec(rest);
    if (m) { steps.push(Number(m[1])); i += m[0].length; continue; }
    m = /^\[(?:'([^']*)'|"([^"]*)")\]/.exec(rest);
    if (m) { steps.push((m[1] ?? m[2])); i += m[0].length; continue; }
    return null;
  }
  return steps;
}

/** The value at a path, or undefined when the path leads nowhere. */
export function readJsonPath(value: unknown, steps: readonly JsonPathStep[]): unknown {
  let cur: unknown = value;
  for (const s of steps) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (typeof s === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[s];
    } else {
      if (!Object.hasOwn(cur, s)) return undefined;
      cur = (cur as Record<string, unknown>)[s];
    }
  }
  return cur;
}

/** Why an assertion is malformed (the API's 400 message), or null when it can be judged; `on` is what the kind asserts on (its `assertions` in the kinds table). */
export function assertionProblem(a: Assertion, on: 'http' | 'answer'): string | null {
  if (on === 'answer') {
    if (!DNS_SOURCES.includes(a.source)) return 'A DNS assertion checks the answer (source answer)';
    if (!DNS_COMPARISONS.includes(a.comparison)) return 'A DNS assertion compares with equals, not_equals, contains or not_contains';
  } else if (a.source === 'answer') {
    return 'Source answer is for DNS checks';
  }
  if (a.source === 'json_body' && !parseJsonPath(a.property)) return 'A json_body assertion needs a JSON path such as $.status or $.items[0].id';
  if (a.source === 'header' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/.test(a.property)) return 'A header assertion needs a header name';
  if (NUMERIC_SOURCES.includes(a.source)) {
    if (!['equals', 'not_equals', 'less_than', 'greater_than'].includes(a.comparison)) return `${a.source} compares with equals, not_equals, less_than or greater_than`;
    if (a.target.trim() === '' || !Number.isFinite(Number(a.target))) return `${a.source} must be compared with a number`;
  }
  if ((a.comparison === 'less_than' || a.comparison === 'greater_than') && !NUMERIC_SOURCES.includes(a.source) && (a.target.trim() === '' || !Number.isFinite(Number(a.target)))) {
    return `${a.comparison} needs a number`;
  }
  if (a.comparison === 'matches') {
    if (a.target.length > LIMITS_CHECK.regexLength) return `A regular expression must be at most ${LIMITS_CHECK.regexLength} characters long`;
    try {
      new RegExp(a.target);
    } catch {
      return 'Please enter a valid regular expression';
    }
    const backtracking = regexBacktrackingProblem(a.target);
    if (backtracking) return backtracking;
  }
  return null;
}

type Repeat = 'none' | 'bounded' | 'unbounded';

/**
 * Why a (valid) user regex could backtrack far beyond its text's length, or null. The agent runs
 * user regexes on a backtracking engine: backreferences, lookarounds and a group repeated without
 * bound around another quantifier (`(a+)+`, `(a?b?)*`, `(\w+\s?){2,}`) are refused here, and the
 * agent bounds the time of what remains (overlapping alternatives, `.*.*`) per check.
 */
export function regexBacktrackingProblem(pattern: string): string | null {
  // One entry per open group: the strongest quantifier seen inside it so far.
  const open: Repeat[] = ['none'];
  let closed: Repeat | null = null; // what the group just closed holds, when the last atom was a group
  const note = (r: Repeat) => {
    for (let k = 0; k < open.length; k++) if (r === 'unbounded' || open[k] === 'none') open[k] = r;
  };
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return 'Backreferences (\\1, \\k<name>) are not allowed in a regular expression';
      i += 2;
      closed = null;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '^') j++;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      i = j + 1;
      closed = null;
      continue;
    }
    if (c === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) return 'Lookarounds ((?=, (?!, (?<=, (?<!) are not allowed in a regular expression';
      open.push('none');
      i += pattern[i + 1] === '?' ? 2 : 1;
      closed = null;
      continue;
    }
    if (c === ')') {
      closed = open.length > 1 ? open.pop()! : 'none';
      i++;
      continue;
    }
    const q = /^(?:[*+?]|\{(\d+)(,(\d*))?\})/.exec(pattern.slice(i));
    if (q) {
      const max = q[0] === '?' ? 1 : q[0] === '*' || q[0] === '+' ? Infinity : q[2] === undefined ? Number(q[1]) : q[3] === '' ? Infinity : Number(q[3]);
      const repeat: Repeat = max === Infinity ? 'unbounded' : 'bounded';
      if (closed !== null && max > 1 && (closed === 'unbounded' || (closed === 'bounded' && repeat === 'unbounded'))) {
        return 'Nested quantifiers such as (a+)+ are not allowed in a regular expression';
      }
      note(repeat);
      i += q[0].length;
      if (pattern[i] === '?') i++; // lazy
      closed = null;
      continue;
    }
    closed = null;
    i++;
  }
  return null;
}

/** What a check answered, as assertions read it. */
export interface CheckAnswer {
  status_code?: number;
  response_time?: number;
  body?: string;
  headers?: Record<string, string>;
  cert_days_left?: number;
  /** dns: the records, one per line */
  answer?: string;
}

/** Runs a regex on a text; the agent passes one bounded in time. */
export type RegexTest = (pattern: string, text: string) => boolean | 'timeout';

const defaultRegexTest: RegexTest = (pattern, text) => new RegExp(pattern).test(text);

const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);

function label(a: Assertion): string {
  if (a.source === 'json_body') return a.property;
  if (a.source === 'header') return `header ${a.property.toLowerCase()}`;
  return a.source;
}

const VERB: Record<AssertionComparison, string> = {
  equals: 'equal', not_equals: 'not equal', contains: 'contain', not_contains: 'not contain',
  less_than: 'be less than', greater_than: 'be greater than', matches: 'match',
};

/**
 * Null when the answer passes the assertion, else the reason a person reads: numbers and short
 * values as "status_code 503, expected equals 200"; texts as "body does not contain \"ok\"".
 */
export function failedAssertion(a: Assertion, answer: CheckAnswer, regexTest: RegexTest = defaultRegexTest): string | null {
  let actual: unknown;
  switch (a.source) {
    case 'json_body': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(answer.body ?? '');
      } catch {
        return 'body is not JSON';
      }
      const steps = parseJsonPath(a.property);
      actual = steps ? readJsonPath(parsed, steps) : undefined;
      if (actual === undefined) return `${a.property} not found in the body`;
      break;
    }
    case 'header':
      actual = answer.headers?.[a.property.toLowerCase()];
      if (actual === undefined && a.comparison !== 'not_contains' && a.comparison !== 'not_equals') return `header ${a.property.toLowerCase()} missing`;
      actual ??= '';
      break;
    default:
      actual = answer[a.source];
      if (actual === undefined) return `${a.source} not available`;
  }
  const text = typeof actual === 'string' ? actual : JSON.stringify(actual);
  const num = typeof actual === 'number' ? actual : Number(text);
  const target = Number(a.target);
  let pass: boolean;
  switch (a.comparison) {
    case 'equals': pass = typeof actual === 'number' ? actual === target : text === a.target; break;
    case 'not_equals': pass = typeof actual === 'number' ? actual !== target : text !== a.target; break;
    case 'contains': pass = text.includes(a.target); break;
    case 'not_contains': pass = !text.includes(a.target); break;
    case 'less_than': pass = Number.isFinite(num) && num < target; break;
    case 'greater_than': pass = Number.isFinite(num) && num > target; break;
    case 'matches': {
      const r = regexTest(a.target, text);
      if (r === 'timeout') return `${label(a)} regex ${quote(a.target)} took too long`;
      pass = r;
      break;
    }
  }
  if (pass) return null;
  const long = a.source === 'body' || a.source === 'answer' || text.length > 40;
  if (long) {
    if (a.comparison === 'not_contains') return `${label(a)} contains ${quote(a.target)}`;
    if (a.comparison === 'not_equals') return `${label(a)} equals ${quote(a.target)}`;
    return `${label(a)} does not ${VERB[a.comparison]} ${quote(a.target)}`;
  }
  const shown = typeof actual === 'number' ? String(Math.round(actual * 1000) / 1000) : quote(text);
  return `${label(a)} ${shown}, expected ${a.comparison} ${NUMERIC_SOURCES.includes(a.source) || a.comparison === 'less_than' || a.comparison === 'greater_than' ? a.target : quote(a.target)}`;
}
