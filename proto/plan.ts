// Plan policy: what a plan (package) allows, in one pure table. For a plan and an input it answers
// the violations with their SPEC messages (`planViolations`), what a downgrade switches off
// (`downgradeEndpoint`, `endpointsToSwitchOff`), what the dashboard reports as allowed
// (`allowedFeatures`) and what the pricing page sells (`pricingLines`). The server (endpoints,
// plan changes, API keys), the CLI's `monitors` dry run and the web endpoint form all call it.
// Browser-safe: no Node imports.
//
// Adding a plan field (say `max_status_pages`) is one entry in PLAN_FIELDS: what it gates, how the
// pricing page sells it, and its check on the input (plus the input's new member).
import { FEATURES, FEATURE_LABELS, MESSAGES, type Feature, type Package } from './rest';
import type { EndpointKind } from './assertions';
import { endpointKindSpec, endpointKinds } from './check-kinds';

/**
 * The plan fields the rules read. A full `Package` fits; so does the dashboard's subset (whose
 * feature flags are already the effective ones, so a missing `ssl_monitoring` is not a refusal).
 * A rule whose field is missing is not checked (the server, which has the whole package, checks it).
 */
export type PlanLimits = Pick<Package, 'package_name' | 'max_regions' | Feature> &
  Partial<Pick<Package, 'max_members' | 'max_endpoints' | 'multi_region' | 'ssl_monitoring' | 'api_access' | 'advanced_alerts' | 'check_frequency_seconds' | 'retention_days' | 'max_status_pages' | 'monitor_kinds' | 'custom_domains' | 'browser_checks'>>;

/** What a request asks of the plan; each member is checked only when present. */
export interface PlanInput {
  /** Monitoring features the endpoint would have. */
  features?: Partial<Record<Feature, boolean>>;
  /** Region keys (`EU-Germany`) the endpoint would check from, already defaulted to the primary. */
  regions?: string[];
  /** Endpoints with monitoring on the account would have after the change. */
  endpoints?: number;
  /** The request makes or uses an API key. */
  apiAccess?: boolean;
  /** The request creates or edits an escalation policy. */
  escalation?: boolean;
  /** Members (and pending invitations) the workspace would have after an invitation. */
  members?: number;
  /** Status pages the account would have after the change. */
  statusPages?: number;
  /** The endpoint's kind (http, tcp, dns, heartbeat). */
  kind?: EndpointKind;
  /** A status page asks for a custom domain. */
  customDomain?: boolean;
  /** The endpoint's own check interval in seconds. */
  interval?: number;
  /** Browser endpoints the account would have after the change. */
  browserChecks?: number;
}

/** Where the account's regions are: the primary one's key and label ('EU - Germany'). */
export interface PlanContext {
  primaryRegion?: { key: string; label: string } | null;
  /** Billing is on: a refusal may point at checkout instead of the operator. */
  checkout?: boolean;
}

export type PlanField = Exclude<keyof Package, 'package_id'>;

export interface PlanViolation {
  /** The package field that refuses. */
  field: PlanField;
  /** The part of the input refused (`kind`, `interval`, `features`, `regions`, `endpoints`, `api`, `status_pages`, `custom_domain`, `members`). */
  subject: 'kind' | 'interval' | 'features' | 'regions' | 'endpoints' | 'api' | 'escalation' | 'status_pages' | 'custom_domain' | 'members' | 'browser_checks';
  /** The SPEC message shown to the user. */
  message: string;
  /** The HTTP status the API answers it with (REFUSAL_STATUS). */
  status: 400 | 403;
}

/**
 * The status each refusal answers. What an endpoint body asks for (features, regions) and the
 * endpoint count answer 400; what the account may not do at all (a kind, a check interval below the
 * plan's, API keys, members, status pages, custom domains) answers 403. Clients rely on these: a new subject picks one here.
 */
export const REFUSAL_STATUS = {
  kind: 403,
  interval: 403,
  features: 400,
  regions: 400,
  endpoints: 400,
  api: 403,
  escalation: 403,
  status_pages: 403,
  custom_domain: 403,
  members: 403,
  browser_checks: 403,
} as const satisfies Record<PlanViolation['subject'], 400 | 403>;

/**
 * Checks run in this order (the first violation is the one an API answers): features (in FEATURES
 * order, the form's), regions, endpoint count, API.
 */
const PHASE = { kind: -1, browserChecks: -0.75, interval: -0.5, features: 0, regions: 10, endpoints: 20, api: 30, escalation: 35, statusPages: 40, customDomain: 45, members: 50 } as const;
const featurePhase = (f: Feature) => PHASE.features + FEATURES.indexOf(f);

interface FieldPolicy {
  /** What the field gates, in words (docs, and the enforcement walk in control-plane/src/services/plan-policy.test.ts). */
  gates: string;
  /** The pricing page's line for a plan, or null when the field sells nothing there. */
  sell?: (p: Package) => string | null;
  /** The input check: a violation's message, or null. */
  check?: { phase: number; subject: PlanViolation['subject']; run: (plan: PlanLimits, input: PlanInput, ctx: PlanContext) => string | null };
}

/** A plan allows a feature when its flag is on and, for certificate expiry, it sells SSL monitoring. */
export function featureAllowed(plan: PlanLimits, f: Feature): boolean {
  if (!plan[f]) return false;
  return f !== 'cert_expiry' || plan.ssl_monitoring !== false;
}

const featureCheck = (f: Feature): FieldPolicy['check'] => ({
  phase: featurePhase(f),
  subject: 'features',
  run: (plan, input) => (input.features?.[f] && !plan[f] ? MESSAGES.featureNotInPlan(FEATURE_LABELS[f]) : null),
});

const primaryOnlyMessage = (plan: string, primaryLabel: string) =>
  `Your ${plan} plan monitors from the primary region ${primaryLabel} only. Please upgrade to select more regions.`;

export function formatInterval(seconds: number): string {
  if (seconds < 60) return `${seconds} seconds`;
  const m = Math.round(seconds / 60);
  return `${m} minute${m === 1 ? '' : 's'}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Every package field, in the pricing page's order. `satisfies Record<keyof Package, …>` makes a
 * new field of `Package` a compile error until it has its entry here.
 */
export const PLAN_FIELDS = {
  package_id: { gates: 'nothing: the catalogue id' },
  package_name: { gates: 'nothing: the name in messages and on the pricing card' },
  price: { gates: 'nothing: the price per month, shown on the pricing card' },
  currency: { gates: 'nothing: the price currency' },
  description: { gates: 'nothing: the pricing card text' },
  stripe_price_id: { gates: 'nothing: the Stripe price a checkout buys' },
  max_endpoints: {
    gates: "endpoints per account: creating one or monitors apply (all endpoints count), switching one back on (those monitoring count); a downgrade switches the newest off",
    sell: (p) => `${p.max_endpoints} endpoints`,
    check: { phase: PHASE.endpoints, subject: 'endpoints', run: (plan, input) =>
        input.endpoints !== undefined && plan.max_endpoints !== undefined && input.endpoints > plan.max_endpoints ? MESSAGES.tooManyEndpoints(plan.max_endpoints, plan.package_name) : null,
    },
  },
  max_members: {
    gates: 'members of a workspace: an invitation beyond it (members plus pending invitations) is refused (403)',
    sell: (p) => (p.max_members ? plural(p.max_members, 'team member') : null),
    check: { phase: PHASE.members, subject: 'members', run: (plan, input, ctx) =>
        input.members !== undefined && plan.max_members !== undefined && input.members > plan.max_members ? MESSAGES.tooManyMembers(plan.max_members, plan.package_name, ctx.checkout) : null,
    },
  },
  check_frequency_seconds: {
    gates: "each check's interval: the shortest an endpoint may choose (403 below it); assignments carry the endpoint's own interval or this one, never less",
    sell: (p) => `Checks every ${formatInterval(p.check_frequency_seconds)}`,
    check: { phase: PHASE.interval, subject: 'interval', run: (plan, input) =>
        input.interval !== undefined && plan.check_frequency_seconds !== undefined && input.interval < plan.check_frequency_seconds
          ? MESSAGES.intervalNotInPlan(plan.check_frequency_seconds, plan.package_name) : null,
    },
  },
  max_regions: {
    gates: 'regions per endpoint; a downgrade keeps the first ones',
    sell: (p) => `${plural(p.max_regions, 'region')}${p.multi_region ? ' (multi-region)' : ''}`,
    check: { phase: PHASE.regions, subject: 'regions', run: (plan, input) => (input.regions && input.regions.length > plan.max_regions ? MESSAGES.tooManyRegions(plan.max_regions, plan.package_name) : null) },
  },
  multi_region: {
    gates: 'regions other than the primary one; a downgrade keeps the primary region',
    check: {
      phase: PHASE.regions,
      subject: 'regions',
      run: (plan, input, ctx) => {
        const primary = ctx.primaryRegion;
        if (plan.multi_region !== false || !primary || !input.regions) return null;
        return input.regions.some((r) => r !== primary.key) ? primaryOnlyMessage(plan.package_name, primary.label) : null;
      },
    },
  },
  retention_days: {
    gates: "how long results are kept (each row's retention_days, read by ClickHouse's TTL)",
    sell: (p) => (p.retention_days ? `${p.retention_days}-day data retention` : null),
  },
  ssl_monitoring: {
    gates: 'the Certificate Expiry feature (the TLS check), together with cert_expiry',
    sell: (p) => (featureAllowed(p, 'cert_expiry') ? 'SSL certificate monitoring' : null),
    check: {
      phase: featurePhase('cert_expiry'),
      subject: 'features',
      run: (plan, input) => (input.features?.cert_expiry && plan.cert_expiry && plan.ssl_monitoring === false ? MESSAGES.featureNotInPlan(FEATURE_LABELS.cert_expiry) : null),
    },
  },
  advanced_alerts: {
    // SMS costs the operator per message: test sends to an SMS method need this flag
    // (alerting/settings.ts, SMS_TEST_NEEDS_PLAN). Every other platform and threshold is on every plan.
    gates: 'SMS test sends and escalation policies (403 without it); every other alert platform and threshold is on every plan',
    sell: (p) => (p.advanced_alerts ? 'SMS alerts' : null),
    check: { phase: PHASE.escalation, subject: 'escalation', run: (plan, input) => (input.escalation && plan.advanced_alerts === false ? MESSAGES.escalationNotInPlan : null) },
  },
  api_access: {
    gates: 'API keys: creating one and every request made with one (403)',
    sell: (p) => (p.api_access ? 'API access' : null),
    check: { phase: PHASE.api, subject: 'api', run: (plan, input) => (input.apiAccess && plan.api_access !== true ? MESSAGES.apiAccessNotInPlan : null) },
  },
  ping_host: { gates: 'the Ping Host feature (ping checks)', check: featureCheck('ping_host') },
  cert_expiry: { gates: 'the Certificate Expiry feature (the TLS check), together with ssl_monitoring', check: featureCheck('cert_expiry') },
  monitor_kinds: {
    gates: 'the endpoint kinds an account may create or edit (Free: http, heartbeat; Starter and above: all); absent means all',
    check: { phase: PHASE.kind, subject: 'kind', run: (plan, input) =>
        input.kind && plan.monitor_kinds && !plan.monitor_kinds.includes(input.kind) ? MESSAGES.featureNotInPlan(endpointKindSpec(input.kind).label) : null,
    },
  },
  browser_checks: {
    gates: 'browser endpoints per account: creating one, or making an endpoint one, beyond it (403); Free has none',
    sell: (p) => (p.browser_checks ? plural(p.browser_checks, 'browser check') : null),
    check: { phase: PHASE.browserChecks, subject: 'browser_checks', run: (plan, input) =>
        input.browserChecks !== undefined && plan.browser_checks !== undefined && input.browserChecks > plan.browser_checks ? MESSAGES.tooManyBrowserChecks(plan.browser_checks, plan.package_name) : null,
    },
  },
  response_code: { gates: 'the Response Code feature (HTTP checks from the primary region)', check: featureCheck('response_code') },
  response_time: { gates: 'the Response Time feature (HTTP checks from every region)', check: featureCheck('response_time') },
  max_status_pages: {
    gates: 'public status pages per account: creating one (services/status-pages.ts)',
    sell: (p) => (p.max_status_pages ? plural(p.max_status_pages, 'status page') : null),
    check: { phase: PHASE.statusPages, subject: 'status_pages', run: (plan, input) =>
        input.statusPages !== undefined && plan.max_status_pages !== undefined && input.statusPages > plan.max_status_pages ? MESSAGES.tooManyStatusPages(plan.max_status_pages, plan.package_name) : null,
    },
  },
  custom_domains: {
    gates: "a status page's custom domain: setting one (services/status-pages.ts create and update, 403); a page already holding one keeps serving it",
    sell: (p) => (p.custom_domains ? 'Custom domains for status pages' : null),
    check: { phase: PHASE.customDomain, subject: 'custom_domain', run: (plan, input) => (input.customDomain && plan.custom_domains === false ? MESSAGES.customDomainsNotInPlan : null) },
  },
} satisfies Record<keyof Package, FieldPolicy>;

const TABLE: Array<[PlanField, FieldPolicy]> = Object.entries(PLAN_FIELDS) as Array<[PlanField, FieldPolicy]>;
const CHECKS = TABLE.filter(([, p]) => p.check)
  .map(([field, p], i) => ({ field, check: p.check!, i }))
  .sort((a, b) => a.check.phase - b.check.phase || a.i - b.i);

/**
 * The Free plan's limits as SPEC section 9 sells them: what a client assumes before the account's
 * own plan has loaded (the seed writes the same values into the catalogue).
 */
export const FREE_PLAN_DEFAULTS = {
  package_name: 'Free',
  max_regions: 1,
  ping_host: false,
  cert_expiry: false,
  response_code: true,
  response_time: false,
} as const satisfies PlanLimits;

/** Everything the plan refuses in the input, first the one an API answers; empty when allowed. */
export function planViolations(plan: PlanLimits, input: PlanInput, ctx: PlanContext = {}): PlanViolation[] {
  const out: PlanViolation[] = [];
  for (const { field, check } of CHECKS) {
    const message = check.run(plan, input, ctx);
    if (message) out.push({ field, subject: check.subject, message, status: REFUSAL_STATUS[check.subject] });
  }
  return out;
}

/** The endpoint kinds a plan allows (absent in the plan: all). */
export function allowedKinds(plan: Pick<PlanLimits, 'monitor_kinds'>): EndpointKind[] {
  return [...(plan.monitor_kinds ?? endpointKinds())];
}

/** The features a plan allows (the dashboard's flags, what the web form and the CLI check against). */
export function allowedFeatures(plan: PlanLimits): Record<Feature, boolean> {
  return Object.fromEntries(FEATURES.map((f) => [f, featureAllowed(plan, f)])) as Record<Feature, boolean>;
}

/** The pricing card's lines for a plan, from the same table the checks use. */
export function pricingLines(p: Package): string[] {
  return TABLE.map(([, policy]) => policy.sell?.(p) ?? null).filter((l): l is string => l !== null);
}

/** An endpoint's plan-governed part: its features and regions. */
export type PlanEndpoint = Record<Feature, boolean> & { regions: string[] };

export interface EndpointDowngrade {
  /** The endpoint's features and regions within the plan (the input unchanged when it already was). */
  next: PlanEndpoint;
  featuresRemoved: Feature[];
  regionsRemoved: string[];
  changed: boolean;
}

/**
 * What a move to `plan` does to one endpoint: features the plan lacks are switched off (one left
 * with no check gets Response Code when the plan has it), regions beyond the primary (without
 * multi_region) and beyond max_regions are removed, keeping the first ones.
 */
export function downgradeEndpoint(plan: PlanLimits & Pick<Package, 'multi_region'>, e: PlanEndpoint, ctx: PlanContext = {}): EndpointDowngrade {
  const next = { ...(Object.fromEntries(FEATURES.map((f) => [f, e[f]])) as Record<Feature, boolean>), regions: [...e.regions] };
  const featuresRemoved: Feature[] = [];
  for (const f of FEATURES) {
    if (next[f] && !featureAllowed(plan, f)) {
      next[f] = false;
      featuresRemoved.push(f);
    }
  }
  if (!FEATURES.some((f) => next[f]) && featureAllowed(plan, 'response_code')) next.response_code = true;
  const primaryKey = ctx.primaryRegion?.key ?? null;
  let kept = plan.multi_region || !primaryKey ? next.regions : next.regions.filter((r) => r === primaryKey);
  kept = kept.slice(0, Math.max(1, plan.max_regions));
  if (kept.length === 0 && primaryKey) kept = [primaryKey];
  const regionsRemoved = e.regions.filter((r) => !kept.includes(r));
  next.regions = kept;
  const changed = FEATURES.some((f) => next[f] !== e[f]) || kept.length !== e.regions.length || kept.some((r, i) => r !== e.regions[i]);
  return { next, featuresRemoved, regionsRemoved, changed };
}

/** The endpoints a move to `plan` switches off: the newest ones over max_endpoints (ties: higher id first). */
export function endpointsToSwitchOff<T extends { url_id: number; created_at: string }>(plan: Pick<Package, 'max_endpoints'>, enabled: T[]): T[] {
  const over = enabled.length - plan.max_endpoints;
  if (over <= 0) return [];
  const newestFirst = [...enabled].sort((a, b) => (a.created_at === b.created_at ? b.url_id - a.url_id : a.created_at < b.created_at ? 1 : -1));
  return newestFirst.slice(0, over);
}
