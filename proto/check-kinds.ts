// The one table of check kinds both sides share. Two levels:
// - CHECK_KIND_TABLE, per proto kind (what an agent runs and a result carries): its short name (the
//   middle part of a check id, the ClickHouse `kind` column, the agent's metric label and prober
//   folder agent/src/probers/<name>/), its wire number, what it plots, how it counts for uptime and
//   for "down", and its live-state rank.
// - ENDPOINT_KIND_TABLE, per endpoint kind (what a user creates): the checks it yields, where each
//   runs, the graphs it shows, its target syntax and its assertions.
// Both are typed `Record<kind, spec>`, so a new proto enum value or endpoint kind without its entry
// does not compile. Browser-safe: no Node imports.
import type { Assignment, CheckKind } from './index';
import type { Assertion, DnsRecordType, EndpointKind } from './assertions';
import type { EndpointCheck, Feature, GraphFunction } from './rest';
import { isDnsName, parseHostPort, parseResolver } from './target-syntax';
import { LIMITS_BROWSER, type BrowserStep } from './browser-steps';

/** A kind an assignment can have (the proto's UNSPECIFIED is never assigned). */
export type AssignedKind = Exclude<CheckKind, 'CHECK_KIND_UNSPECIFIED'>;
/** A kind's short name. */
export type KindName = 'http' | 'tls' | 'ping' | 'tcp' | 'dns' | 'browser';

/** Which aggregate of a result row a graph function plots: mean timing, the status code, the certificate's days left. */
export type GraphValue = 'avg' | 'code' | 'cert';

export interface CheckKindSpec {
  name: KindName;
  /** The enum's number in agent_service.proto (the hand-written batch decoder reads it). */
  wire: number;
  /** The graph functions this kind's results feed, and which aggregate each plots. */
  graphs: Readonly<Partial<Record<GraphFunction, GraphValue>>>;
  /**
   * How a result counts for uptime: 'http' passed = 2xx or accepted by its assertions
   * (results/schema.ts SQL_HTTP_PASSED, rollup column ok2xx_n); 'ok' passed = ok (ok_n); null = not counted.
   */
  uptime: 'http' | 'ok' | null;
  /** Whether its results say an endpoint is down (an endpoint runs one such check kind). */
  down: boolean;
  /** Which kind speaks for an endpoint's live state: the highest rank it has results of. */
  liveRank: number;
  /** The assignment fields this kind sends the agent, from the endpoint's stored check. */
  assignment(check: EndpointCheck, placement: PlacementContext): Partial<Assignment>;
  /** The check's own timeout in seconds when it sets one (else checks.ts derives it from the interval). */
  timeoutSeconds?(check: EndpointCheck): number | undefined;
  /** The shortest interval this kind runs at, in seconds (a browser run costs a whole browser). */
  minIntervalSeconds?: number;
  /** Only agents that report they can run it get it (browser: those with a Chromium). */
  capability?: 'browser_checks';
}

/** What the control plane's policy adds to a check's assignment. */
export interface PlacementContext {
  /** private targets are refused for this check */
  privateTargetsDenied: boolean;
  /** the operator's public DNS resolvers (DNS_RESOLVERS) */
  defaultResolvers: readonly string[];
}

function httpAssignment(c: EndpointCheck): Partial<Assignment> {
  const out: Partial<Assignment> = {};
  if (c.request) {
    const r = c.request;
    out.request = { method: r.method, headers: r.headers.map((h) => ({ name: h.name, value: h.value ?? '', secret: h.secret === true })), body: r.body, follow_redirects: r.follow_redirects };
  }
  if (c.assertions?.length) out.assertions = c.assertions;
  return out;
}

/** A browser step on the wire: every field present (proto3), '' and false for the ones it does not use. */
function wireStep(s: BrowserStep): NonNullable<Assignment['steps']>[number] {
  return {
    action: s.action, url: s.url ?? '', selector: s.selector ?? '', value: s.value ?? '', secret: s.secret === true, key: s.key ?? '',
    text: s.text ?? '', state: s.state ?? '', contains: s.contains ?? '', equals: s.equals ?? '', name: s.name ?? '',
  };
}

export const CHECK_KIND_TABLE: Readonly<Record<AssignedKind, CheckKindSpec>> = {
  CHECK_KIND_HTTP: {
    name: 'http', wire: 1, graphs: { response_time: 'avg', response_code: 'code' }, uptime: 'http', down: true, liveRank: 3, assignment: httpAssignment,
    timeoutSeconds: (c) => c.request?.timeout_seconds,
  },
  CHECK_KIND_TLS: { name: 'tls', wire: 2, graphs: { cert_expiry: 'cert' }, uptime: null, down: false, liveRank: 1, assignment: () => ({}) },
  CHECK_KIND_PING: { name: 'ping', wire: 3, graphs: { ping: 'avg' }, uptime: null, down: false, liveRank: 2, assignment: () => ({}) },
  // tcp and dns graph their connect / lookup time as response time; a heartbeat's pings are stored as tcp (region push).
  CHECK_KIND_TCP: {
    name: 'tcp', wire: 4, graphs: { response_time: 'avg' }, uptime: 'ok', down: true, liveRank: 3,
    assignment: (c) => ({ target: c.target ?? '' }),
  },
  CHECK_KIND_DNS: {
    name: 'dns', wire: 5, graphs: { response_time: 'avg' }, uptime: 'ok', down: true, liveRank: 3,
    assignment: (c, p) => ({
      target: c.target ?? '', record_type: c.record_type ?? 'A', resolver: c.resolver ?? '', assertions: c.assertions ?? [],
      // A DNS check naming no resolver asks the operator's public ones, not the agent's private resolver.
      ...(p.privateTargetsDenied && !c.resolver && p.defaultResolvers.length ? { default_resolvers: [...p.defaultResolvers] } : {}),
    }),
  },
  // The page's time to first byte and the run's total are graphed as response time.
  CHECK_KIND_BROWSER: {
    name: 'browser', wire: 6, graphs: { response_time: 'avg' }, uptime: 'ok', down: true, liveRank: 3,
    assignment: (c) => ({ steps: (c.steps ?? []).map(wireStep) }),
    timeoutSeconds: (c) => c.timeout_seconds ?? LIMITS_BROWSER.timeoutSecondsDefault,
    minIntervalSeconds: LIMITS_BROWSER.minIntervalSeconds,
    capability: 'browser_checks',
  },
};

/** The short name of every proto kind (kept as its own map: the agent and check ids read it). */
export const CHECK_KINDS: Readonly<Record<AssignedKind, KindName>> = Object.fromEntries(
  Object.entries(CHECK_KIND_TABLE).map(([k, s]) => [k, s.name]),
) as Record<AssignedKind, KindName>;

/** The short name of a proto kind, or null for UNSPECIFIED and anything unknown. */
export function kindName(kind: string): KindName | null {
  return Object.hasOwn(CHECK_KIND_TABLE, kind) ? CHECK_KIND_TABLE[kind as AssignedKind].name : null;
}

/** A kind's entry by short name, or undefined for anything unknown. */
export function checkKindByName(name: string): CheckKindSpec | undefined {
  return Object.values(CHECK_KIND_TABLE).find((s) => s.name === name);
}

/** Every kind's spec, in table order. */
export const checkKindSpecs = (): CheckKindSpec[] => Object.values(CHECK_KIND_TABLE);

/** The short names of the kinds matching a rule, e.g. those counted for uptime. */
export const kindNamesWhere = (test: (s: CheckKindSpec) => boolean): KindName[] => checkKindSpecs().filter(test).map((s) => s.name);

// ---- endpoint kinds ----

/**
 * One check an endpoint yields. `feature` gates it on the endpoint's feature flag (HTTP endpoints);
 * `regions`: 'all' = each chosen region, 'primary' = the primary region only, 'all-or-primary' =
 * each chosen region, or the primary one when none is chosen. `httpsOnly`: only for an https URL.
 */
export interface YieldedCheck {
  kind: AssignedKind;
  feature?: Feature;
  regions: 'all' | 'primary' | 'all-or-primary';
  httpsOnly?: boolean;
}

/** The check fields of an endpoint body a target parser reads (already type-checked by the schema). */
export interface TargetFields {
  target?: string;
  record_type?: DnsRecordType;
  resolver?: string;
  assertions?: Assertion[];
}

/** What a stored target's public-address rule looks at: a host name, or an IP address. */
export type PublicTarget = { hostname: string; message: string } | { address: string; message: string };

/** What a form asks for as the target, how it is checked and how it is stored. */
export type TargetSyntax =
  | { field: 'url' }
  | { field: 'none' }
  | {
    field: 'target';
    /** The form field's label and placeholder. */
    label: string;
    placeholder: string;
    /** The 400 message when it is missing. */
    required: string;
    /** What is wrong with the body's target fields (the API's 400 messages), empty when nothing. */
    problems(b: TargetFields): Array<{ message: string; path: string }>;
    /** The check as stored and the URL it is stored under (unique per workspace). */
    stored(b: TargetFields): { url: string; check: EndpointCheck };
    /** What must be public when private targets are not allowed. */
    publicTarget(check: EndpointCheck): PublicTarget | null;
  };

export interface EndpointKindSpec {
  /** Its name in the form's kind picker and in plan messages ("The TCP Port monitoring feature…"). */
  label: string;
  /** The checks an agent runs for it (none for a heartbeat: its job pings it). */
  checks: readonly YieldedCheck[];
  /** For a kind pinged by its job instead: the check kind its pings are stored as (region push). */
  pushedAs?: AssignedKind;
  /** Its graph functions; with `feature`, only when that feature is on. */
  graphs: readonly { fn: GraphFunction; feature?: Feature }[];
  target: TargetSyntax;
  /** Which assertions it takes: on an HTTP answer, on a DNS answer, or none (with the 400 message). */
  assertions: 'http' | 'answer' | { refused: string };
  /** The check fields the form starts with when this kind is picked. */
  blank: EndpointCheck;
}

export const ENDPOINT_KIND_TABLE: Readonly<Record<EndpointKind, EndpointKindSpec>> = {
  http: {
    label: 'HTTP',
    checks: [
      { kind: 'CHECK_KIND_HTTP', feature: 'response_time', regions: 'all' },
      { kind: 'CHECK_KIND_HTTP', feature: 'response_code', regions: 'primary' },
      { kind: 'CHECK_KIND_TLS', feature: 'cert_expiry', regions: 'primary', httpsOnly: true },
      { kind: 'CHECK_KIND_PING', feature: 'ping_host', regions: 'all' },
    ],
    graphs: [
      { fn: 'response_time', feature: 'response_time' },
      { fn: 'response_code', feature: 'response_code' },
      { fn: 'ping', feature: 'ping_host' },
      { fn: 'cert_expiry', feature: 'cert_expiry' },
    ],
    target: { field: 'url' },
    assertions: 'http',
    blank: { kind: 'http' },
  },
  tcp: {
    label: 'TCP Port',
    checks: [{ kind: 'CHECK_KIND_TCP', regions: 'all-or-primary' }],
    graphs: [{ fn: 'response_time' }],
    target: {
      field: 'target', label: 'Host and port', placeholder: 'db.example.com:5432', required: 'Target is required (host:port)',
      problems: (b) => [
        ...(parseHostPort(b.target!) ? [] : [{ message: 'Target must be host:port with a port from 1 to 65535', path: 'target' }]),
        ...(b.record_type !== undefined || b.resolver !== undefined ? [{ message: 'record_type and resolver are for dns checks', path: 'record_type' }] : []),
      ],
      stored: (b) => {
        const hp = parseHostPort(b.target!)!;
        const target = `${hp.host}:${hp.port}`;
        return { url: `tcp://${target}`, check: { kind: 'tcp', target } };
      },
      publicTarget: (c) => ({ hostname: parseHostPort(c.target!)!.host, message: 'Target must point to a public address' }),
    },
    assertions: { refused: 'A tcp check has no assertions: it is up when the port opens' },
    blank: { kind: 'tcp', target: '' },
  },
  dns: {
    label: 'DNS',
    checks: [{ kind: 'CHECK_KIND_DNS', regions: 'all-or-primary' }],
    graphs: [{ fn: 'response_time' }],
    target: {
      field: 'target', label: 'Domain name', placeholder: 'example.com', required: 'Target is required (a domain name)',
      problems: (b) => [
        ...(isDnsName(b.target!) ? [] : [{ message: 'Target must be a domain name', path: 'target' }]),
        ...(b.resolver && !parseResolver(b.resolver) ? [{ message: 'Resolver must be an IP address, optionally with :port', path: 'resolver' }] : []),
      ],
      stored: (b) => {
        const target = b.target!.toLowerCase().replace(/\.$/, '');
        const record_type = b.record_type ?? 'A';
        const r = b.resolver ? parseResolver(b.resolver)! : null;
        const resolver = r ? (r.address.includes(':') ? `[${r.address}]:${r.port}` : `${r.address}:${r.port}`) : undefined;
        const check: EndpointCheck = { kind: 'dns', target, record_type, ...(resolver ? { resolver } : {}), ...(b.assertions?.length ? { assertions: b.assertions } : {}) };
        return { url: `dns://${resolver ? `${resolver}/` : ''}${target}/${record_type}`, check };
      },
      publicTarget: (c) => (c.resolver ? { address: parseResolver(c.resolver)!.address, message: 'Resolver must be a public address' } : null),
    },
    assertions: 'answer',
    blank: { kind: 'dns', target: '', record_type: 'A' },
  },
  // Pinged by its job; its pings are stored as results (tcp, region push) and graphed as run time.
  heartbeat: {
    label: 'Heartbeat',
    checks: [],
    pushedAs: 'CHECK_KIND_TCP',
    graphs: [{ fn: 'response_time' }],
    target: { field: 'none' },
    assertions: { refused: 'A heartbeat has no assertions' },
    blank: { kind: 'heartbeat', period_seconds: 3600, grace_seconds: 300 },
  },
  // A real Chromium on an agent that has one loads the URL and runs the steps.
  browser: {
    label: 'Browser',
    checks: [{ kind: 'CHECK_KIND_BROWSER', regions: 'all-or-primary' }],
    graphs: [{ fn: 'response_time' }],
    target: { field: 'url' },
    assertions: { refused: 'A browser check has no assertions: use expect_text, expect_title or expect_url steps' },
    blank: { kind: 'browser', steps: [], timeout_seconds: LIMITS_BROWSER.timeoutSecondsDefault },
  },
};

/** Every endpoint kind of the table (what a plan without a kinds list allows). */
export const endpointKinds = (): EndpointKind[] => Object.keys(ENDPOINT_KIND_TABLE) as EndpointKind[];

/** An endpoint kind's entry; throws for a kind the table does not know (never a silent HTTP default). */
export function endpointKindSpec(kind: string): EndpointKindSpec {
  if (!Object.hasOwn(ENDPOINT_KIND_TABLE, kind)) throw new Error(`unknown endpoint kind ${JSON.stringify(kind)}`);
  return ENDPOINT_KIND_TABLE[kind as EndpointKind];
}

/** The check kind a feature's threshold is judged on (response_time → http, ping_host → ping, …). */
export function featureKind(feature: Feature): KindName {
  for (const spec of Object.values(ENDPOINT_KIND_TABLE)) {
    const c = spec.checks.find((y) => y.feature === feature);
    if (c) return CHECK_KIND_TABLE[c.kind].name;
  }
  throw new Error(`no check kind for feature ${feature}`);
}
