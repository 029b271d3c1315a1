// A browser check's steps: data, never code, so no user program runs on an agent. One rule for the
// API's 400s (schemas/endpoints.ts), the web form's step editor and the agent's prober. Pure and
// zod-free (the agent executable does not carry zod); browser-safe.

export const BROWSER_ACTIONS = [
  'goto', 'click', 'fill', 'press', 'wait_for', 'expect_text', 'expect_title', 'expect_url', 'expect_no_console_errors', 'screenshot',
] as const;
export type BrowserAction = (typeof BROWSER_ACTIONS)[number];

export const WAIT_STATES = ['visible', 'hidden', 'attached', 'detached'] as const;
export type WaitState = (typeof WAIT_STATES)[number];

export interface BrowserStep {
  action: BrowserAction;
  url?: string;
  selector?: string;
  /** fill: absent on a secret value the API answers back (write-only); sending it absent keeps the stored one */
  value?: string;
  secret?: boolean;
  key?: string;
  text?: string;
  state?: WaitState;
  contains?: string;
  equals?: string;
  name?: string;
}

export const LIMITS_BROWSER = {
  steps: 20,
  timeoutSecondsDefault: 30,
  timeoutSecondsMax: 60,
  text: 1000,
  selector: 500,
  /** a screenshot's bytes, PNG or WebP */
  screenshotBytes: 300 * 1024,
  /** console errors and failed requests kept per run, and each one's length */
  listed: 20,
  listedChars: 300,
  /** the minimum interval of a browser check (a run costs a browser) */
  minIntervalSeconds: 300,
} as const;

/** The fields each action takes; `required` must be present (fill's value: unless kept, see stepProblem). */
const FIELDS: Record<BrowserAction, { allowed: readonly (keyof BrowserStep)[]; required: readonly (keyof BrowserStep)[] }> = {
  goto: { allowed: ['url'], required: ['url'] },
  click: { allowed: ['selector'], required: ['selector'] },
  fill: { allowed: ['selector', 'value', 'secret'], required: ['selector'] },
  press: { allowed: ['key', 'selector'], required: ['key'] },
  wait_for: { allowed: ['selector', 'text', 'state'], required: [] },
  expect_text: { allowed: ['selector', 'contains', 'equals'], required: [] },
  expect_title: { allowed: ['contains'], required: ['contains'] },
  expect_url: { allowed: ['contains'], required: ['contains'] },
  expect_no_console_errors: { allowed: [], required: [] },
  screenshot: { allowed: ['name'], required: ['name'] },
};

/** The fields an action takes, for the step editor. */
export const stepFields = (action: BrowserAction): readonly (keyof BrowserStep)[] => FIELDS[action].allowed;

/** How a step is named in messages and incident causes: `step 3 (click)` (1-based). */
export const stepLabel = (index: number, action: string): string => `step ${index + 1} (${action})`;

/** A selector: CSS, or Playwright's `text=` / `role=` forms (no other engines, no `>>` chains). */
export function selectorProblem(s: string): string | null {
  if (s.trim() === '') return 'selector must not be empty';
  if (s.length > LIMITS_BROWSER.selector) return `selector must be at most ${LIMITS_BROWSER.selector} characters long`;
  if (/[\r\n\0]/.test(s)) return 'selector must be one line';
  if (s.includes('>>')) return 'selector must be CSS or a text= / role= selector (no >> chains)';
  const engine = /^\s*([A-Za-z_-]+)\s*=/.exec(s);
  if (engine && engine[1] !== 'text' && engine[1] !== 'role') return 'selector must be CSS or a text= / role= selector';
  if (engine?.[1] === 'role' && !/^\s*role\s*=\s*[a-z]+(\[[^\]]+\])*\s*$/.test(s)) return 'a role= selector is role=<role>, optionally with [name="…"]';
  return null;
}

const isText = (v: unknown): v is string => typeof v === 'string';

/**
 * What is wrong with one step, as `step 3 (click): selector is required`, or null. `keptSecret`:
 * a secret fill may come without its value when one is stored for its selector.
 */
export function stepProblem(raw: unknown, index: number, keptSecret: (selector: string) => boolean = () => false): string | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return `step ${index + 1}: must be an object with an action`;
  const s = raw as Record<string, unknown>;
  if (!isText(s.action) || !(BROWSER_ACTIONS as readonly string[]).includes(s.action)) {
    return `step ${index + 1}: action must be one of ${BROWSER_ACTIONS.join(', ')}`;
  }
  const action = s.action as BrowserAction;
  const label = stepLabel(index, action);
  const spec = FIELDS[action];
  for (const k of Object.keys(s)) {
    if (k !== 'action' && !(spec.allowed as readonly string[]).includes(k)) return `${label}: ${k} is not a field of ${action}`;
  }
  for (const k of spec.required) if (s[k] === undefined || s[k] === '') return `${label}: ${k} is required`;
  for (const k of ['url', 'selector', 'value', 'key', 'text', 'contains', 'equals', 'name'] as const) {
    if (s[k] === undefined) continue;
    if (!isText(s[k])) return `${label}: ${k} must be text`;
    if (s[k].length > LIMITS_BROWSER.text) return `${label}: ${k} must be at most ${LIMITS_BROWSER.text} characters long`;
  }
  if (s.secret !== undefined && typeof s.secret !== 'boolean') return `${label}: secret must be true or false`;
  if (isText(s.selector)) {
    const p = selectorProblem(s.selector);
    if (p) return `${label}: ${p}`;
  }
  switch (action) {
    case 'goto': {
      const u = parseHttpUrl(s.url as string);
      if (!u) return `${label}: url must be an absolute http:// or https:// URL without a username or password`;
      break;
    }
    case 'fill':
      if (s.value === undefined && !(s.secret === true && keptSecret(s.selector as string))) return `${label}: value is required`;
      break;
    case 'press':
      if (!/^[A-Za-z0-9+_-]{1,50}$/.test(s.key as string)) return `${label}: key must be a key name such as Enter, Tab or Control+A`;
      break;
    case 'wait_for':
      if ((s.selector === undefined) === (s.text === undefined)) return `${label}: give either selector or text`;
      if (s.state !== undefined && !(WAIT_STATES as readonly unknown[]).includes(s.state)) return `${label}: state must be one of ${WAIT_STATES.join(', ')}`;
      break;
    case 'expect_text':
      if ((s.contains === undefined) === (s.equals === undefined)) return `${label}: give either contains or equals`;
      break;
    case 'screenshot':
      if (!/^[\w .-]{1,60}$/.test(s.name as string)) return `${label}: name must be 1 to 60 letters, digits, spaces, dots, dashes or underscores`;
      break;
    default:
      break;
  }
  return null;
}

/** An absolute http(s) URL without credentials, or null. */
export function parseHttpUrl(raw: string): URL | null {
  try {
    const u = new URL(raw);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname || u.username || u.password) return null;
    return u;
  } catch {
    return null;
  }
}

/** A valid step as stored: only its action's fields, wait_for's state defaulted. */
export function normaliseStep(s: BrowserStep): BrowserStep {
  const out: BrowserStep = { action: s.action };
  for (const k of FIELDS[s.action].allowed) if (s[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = s[k];
  if (s.action === 'goto') out.url = parseHttpUrl(s.url!)!.toString();
  if (s.action === 'wait_for' && !out.state) out.state = 'visible';
  if (s.action === 'fill' && s.secret !== true) delete out.secret;
  return out;
}

/** A step as others see it: a secret value is never shown (write-only). */
export function maskStep(s: BrowserStep): BrowserStep {
  if (s.action !== 'fill' || !s.secret) return s;
  const { value: _v, ...rest } = s;
  return rest;
}

/** A short description of a step for causes and lists: `click #submit`, `fill #password`. */
export function describeStep(s: { action: string } & Partial<Record<'url' | 'selector' | 'key' | 'text' | 'contains' | 'equals' | 'name', string>>): string {
  // '' counts as absent: a step off the wire has every field.
  const arg = s.url || s.selector || s.key || s.text || s.contains || s.equals || s.name || '';
  return arg ? `${s.action} ${arg}` : s.action;
}
