// Monitoring as code: the monitors file ⇄ the account's endpoints. Reading and checking a file,
// the account's state in the file's terms, and the plan (create / update / delete / unchanged).
// Pure functions: the command (index.ts) fetches, calls these, and applies the plan.
import { parse, stringify } from 'yaml';
import { planViolations } from '@upfleet/proto/plan';
import { planContextOf, regionKey } from '@upfleet/proto/regions';
import { FEATURES, type AlertThreshold, type Dashboard, type Endpoint, type EndpointCheck, type Feature, type Region, type ThresholdOperator } from '@upfleet/proto/rest';
import { MonitorSpec, MonitorsFile, endpointCheck } from '@upfleet/proto/schemas';
import { endpointKindSpec } from '@upfleet/proto/check-kinds';
import { maskStep } from '@upfleet/proto/browser-steps';
import { CliError, oneLine } from '../../errors';

/** One monitor as the file says it, normalised the way the API stores it (so equal means unchanged). */
export interface Monitor {
  name: string;
  url: string;
  description: string;
  regions: string[];
  features: Feature[];
  monitoring: boolean;
  alert_thresholds: Threshold[];
  /** Kind, target, request, assertions... (absent: an http GET, as before). */
  check?: EndpointCheck;
  /** The endpoint's own check interval in seconds; absent or null: its plan's. */
  check_frequency_seconds?: number | null;
  /** The escalation policy's id and the url_id depended on; undefined: the file does not say (left as they are); null: none. */
  escalation_policy_id?: number | null;
  depends_on?: number | null;
  /** The SLO target in percent; absent or null: none. */
  slo_target?: number | null;
  /** The SLO window in days; absent: 30. */
  slo_window_days?: number;
}
export interface Threshold { type: Feature; operator: ThresholdOperator; value: number; enabled: boolean; region: string | null }

/** An endpoint of the account in the file's terms, with its id. */
export interface CurrentMonitor extends Monitor { url_id: number }

export type Action = 'create' | 'update' | 'delete' | 'unchanged';
export interface Change { action: Action; name: string; url_id: number | null; fields: string[]; monitor: Monitor | null }

const FIELDS = ['url', 'description', 'regions', 'features', 'monitoring', 'alert_thresholds', 'check', 'check_frequency_seconds', 'escalation_policy_id', 'depends_on', 'slo'] as const;

/** A monitor's SLO fields as the file writes them: the target when set, the window when not 30 days. */
export const sloFields = (m: { slo_target?: number | null; slo_window_days?: number }): { slo_target?: number; slo_window_days?: number } => ({
  ...(typeof m.slo_target === 'number' ? { slo_target: m.slo_target } : {}),
  ...(m.slo_window_days !== undefined && m.slo_window_days !== 30 ? { slo_window_days: m.slo_window_days } : {}),
});

/** A check in the file's terms: only what differs from an http GET; secret header values left out (write-only). */
function fileCheck(c: EndpointCheck | undefined): EndpointCheck | undefined {
  if (!c || ((c.kind ?? 'http') === 'http' && !c.request && !c.assertions?.length)) return undefined;
  const out: EndpointCheck = { kind: c.kind ?? 'http' };
  for (const k of ['target', 'record_type', 'resolver', 'period_seconds', 'cron', 'timezone', 'grace_seconds', 'timeout_seconds'] as const) if (c[k] !== undefined) (out as Record<string, unknown>)[k] = c[k];
  // a secret fill's value is write-only: the file keeps the step without it
  if (c.steps) out.steps = c.steps.map(maskStep);
  if (c.request) out.request = { ...c.request, headers: c.request.headers.map((h) => (h.secret ? { name: h.name, secret: true } : { name: h.name, value: h.value ?? '' })) };
  if (c.assertions?.length) out.assertions = c.assertions.map((a) => ({ source: a.source, property: a.property ?? '', comparison: a.comparison, target: String(a.target) }));
  return out;
}
type Field = (typeof FIELDS)[number];

export { regionKey };

function sortThresholds(list: Threshold[]): Threshold[] {
  const key = (t: Threshold) => `${FEATURES.indexOf(t.type)}:${t.region ?? ''}`;
  return [...list].sort((a, b) => key(a).localeCompare(key(b)));
}

/** The account's endpoints with their saved thresholds (defaults the user never saved are left out). */
export function currentMonitors(endpoints: Endpoint[], thresholds: Map<number, AlertThreshold[]>, regions: Region[]): CurrentMonitor[] {
  const regionById = new Map(regions.map((r) => [r.region_id, regionKey(r)]));
  return endpoints.map((e) => ({
    url_id: e.url_id,
    name: e.name,
    url: e.url,
    description: e.description,
    regions: e.regions,
    features: FEATURES.filter((f) => e[f]),
    monitoring: e.monitoring_enabled,
    ...(e.check_frequency_seconds ? { check_frequency_seconds: e.check_frequency_seconds } : {}),
    ...(e.escalation_policy_id ? { escalation_policy_id: e.escalation_policy_id } : {}),
    ...(e.depends_on ? { depends_on: e.depends_on } : {}),
    ...sloFields(e),
    ...(fileCheck(e) ? { check: fileCheck(e) } : {}),
    alert_thresholds: sortThresholds(
      (thresholds.get(e.url_id) ?? [])
        .filter((t) => t.threshold_id > 0)
        .map((t) => ({
          type: t.monitor_type,
          operator: t.threshold_operator,
          value: t.threshold_value,
          enabled: t.is_enabled,
          region: t.region_id === null ? null : (regionById.get(t.region_id) ?? null),
        })),
    ),
  }));
}

/** A monitor's kind fields in the file: url for http, target (and record type, resolver) for the others. */
function checkYaml(m: Monitor): Record<string, unknown> {
  const c = fileCheck(m.check);
  if (!c) return { url: m.url };
  const { kind, ...rest } = c;
  if (kind === 'http') return { url: m.url, ...rest };
  return endpointKindSpec(kind ?? 'http').target.field === 'url' ? { kind, url: m.url, ...rest } : { kind, ...rest };
}

/** The YAML that `monitors export` writes and `monitors apply` reads back unchanged. */
export function toYaml(monitors: Monitor[], header: string): string {
  const doc = {
    monitors: monitors.map((m) => ({
      name: m.name,
      ...checkYaml(m),
      ...(m.description ? { description: m.description } : {}),
      ...(m.check_frequency_seconds ? { check_frequency_seconds: m.check_frequency_seconds } : {}),
      ...(m.escalation_policy_id ? { escalation_policy_id: m.escalation_policy_id } : {}),
      ...(m.depends_on ? { depends_on: m.depends_on } : {}),
      ...sloFields(m),
      regions: m.regions,
      features: m.features,
      monitoring: m.monitoring,
      ...(m.alert_thresholds.length
        ? { alert_thresholds: m.alert_thresholds.map((t) => ({ type: t.type, operator: t.operator, value: t.value, enabled: t.enabled, ...(t.region ? { region: t.region } : {}) })) }
        : {}),
    })),
  };
  return `${header}${stringify(doc, { lineWidth: 0 })}`;
}

const fieldPath = (path: readonly PropertyKey[]) =>
  path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');

interface Issue { code: string; path: readonly PropertyKey[]; message: string; keys?: string[] }
const issueText = (i: Issue) => {
  if (i.code === 'unrecognized_keys' && i.keys?.length) {
    const where = fieldPath(i.path);
    return `${where ? `${where}.` : ''}${i.keys[0]}: unknown field`;
  }
  const where = fieldPath(i.path);
  return where ? `${where}: ${i.message}` : i.message;
};

/**
 * Reads and checks a monitors file against the file schema and the account's catalogue: every
 * problem names the file, the monitor and the field. Throws one CliError listing the first problem.
 */
export function readMonitorsFile(file: string, text: string, regions: Region[]): Monitor[] {
  const problems: string[] = [];
  let raw: unknown;
  try {
    raw = parse(text) ?? {};
  } catch (err) {
    throw new CliError('invalid', `${file}: not valid YAML: ${oneLine((err as Error).message)}`);
  }
  const top = MonitorsFile.safeParse(raw);
  if (!top.success) throw new CliError('invalid', `${file}: ${issueText(top.error.issues[0])}`);

  const primary = regions.find((r) => r.primary_region);
  const known = new Set(regions.map(regionKey));
  const monitors: Monitor[] = [];
  const seen = new Set<string>();
  top.data.monitors.forEach((item, i) => {
    const rawName = item && typeof item === 'object' && typeof (item as { name?: unknown }).name === 'string' ? (item as { name: string }).name.trim() : '';
    const label = rawName ? `monitor "${rawName}"` : `monitor #${i + 1}`;
    const problem = (text: string) => problems.push(`${file}: ${label}: ${text}`);
    const r = MonitorSpec.safeParse(item);
    if (!r.success) {
      if (!item || typeof item !== 'object') problem('must be a mapping with at least name and url');
      else for (const issue of r.error.issues) problem(issueText(issue));
      return;
    }
    const m = r.data;
    if (seen.has(m.name.toLowerCase())) problem('name: appears more than once in the file (monitors are matched by name)');
    seen.add(m.name.toLowerCase());
    for (const key of m.regions) if (!known.has(key)) problem(`regions: Unknown region: ${key}`);
    const thresholdKeys = new Set<string>();
    m.alert_thresholds.forEach((t, j) => {
      if (t.region !== null && !known.has(t.region)) problem(`alert_thresholds[${j}].region: Unknown region: ${t.region}`);
      const k = `${t.type}:${t.region ?? ''}`;
      if (thresholdKeys.has(k)) problem(`alert_thresholds[${j}]: Each monitor type and region may have one threshold`);
      thresholdKeys.add(k);
    });
    const { url, check } = endpointCheck(m);
    const kept = fileCheck(check);
    monitors.push({
      name: m.name,
      url,
      ...(kept ? { check: { ...kept, ...(check.request ? { request: check.request } : {}), ...(check.steps ? { steps: check.steps } : {}) } } : {}),
      description: m.description,
      ...(m.check_frequency_seconds ? { check_frequency_seconds: m.check_frequency_seconds } : {}),
      ...(m.escalation_policy_id !== undefined ? { escalation_policy_id: m.escalation_policy_id } : {}),
      ...(m.depends_on !== undefined ? { depends_on: m.depends_on } : {}),
      ...sloFields(m),
      regions: m.regions.length === 0 && primary ? [regionKey(primary)] : m.regions,
      features: FEATURES.filter((f) => m.features.includes(f)),
      monitoring: m.monitoring,
      alert_thresholds: sortThresholds(m.alert_thresholds),
    });
  });
  throwProblems(file, problems);
  return monitors;
}

const isHeartbeat = (m: Monitor) => m.check?.kind === 'heartbeat';

function changedFields(want: Monitor, have: Monitor): Field[] {
  const same: Record<Field, () => boolean> = {
    // a heartbeat has no URL of its own (the server names it heartbeat://<id>)
    url: () => want.url === have.url || (isHeartbeat(want) && isHeartbeat(have)),
    description: () => want.description === have.description,
    check_frequency_seconds: () => (want.check_frequency_seconds ?? null) === (have.check_frequency_seconds ?? null),
    // a file that does not name them leaves them as they are
    escalation_policy_id: () => want.escalation_policy_id === undefined || want.escalation_policy_id === (have.escalation_policy_id ?? null),
    depends_on: () => want.depends_on === undefined || want.depends_on === (have.depends_on ?? null),
    slo: () => (want.slo_target ?? null) === (have.slo_target ?? null) && (want.slo_window_days ?? 30) === (have.slo_window_days ?? 30),
    regions: () => [...want.regions].sort().join('\n') === [...have.regions].sort().join('\n'),
    features: () => want.features.join() === have.features.join(),
    monitoring: () => want.monitoring === have.monitoring,
    alert_thresholds: () => JSON.stringify(want.alert_thresholds) === JSON.stringify(have.alert_thresholds),
    // secret header values are write-only: a file's value is sent, never compared
    check: () => JSON.stringify(fileCheck(want.check) ?? null) === JSON.stringify(fileCheck(have.check) ?? null),
  };
  return FIELDS.filter((f) => !same[f]());
}

/** What apply would do, matching by name (case-insensitive); with prune, what the file lacks is deleted. */
export function planChanges(file: string, wanted: Monitor[], current: CurrentMonitor[], prune: boolean): Change[] {
  const byName = new Map<string, CurrentMonitor[]>();
  for (const c of current) byName.set(c.name.toLowerCase(), [...(byName.get(c.name.toLowerCase()) ?? []), c]);
  const changes: Change[] = [];
  const problems: string[] = [];
  for (const want of wanted) {
    const matches = byName.get(want.name.toLowerCase()) ?? [];
    if (matches.length > 1) {
      problems.push(`${file}: monitor "${want.name}": name: ${matches.length} endpoints of the account are named "${want.name}"; rename all but one so the file can match it`);
      continue;
    }
    const have = matches[0];
    if (!have) {
      const fields = FIELDS.filter((f) => f !== 'monitoring' || !want.monitoring).filter((f) => f !== 'description' || want.description).filter((f) => f !== 'alert_thresholds' || want.alert_thresholds.length).filter((f) => f !== 'check' || want.check).filter((f) => f !== 'check_frequency_seconds' || (want.check_frequency_seconds ?? null) !== null).filter((f) => f !== 'slo' || Object.keys(sloFields(want)).length > 0);
      changes.push({ action: 'create', name: want.name, url_id: null, fields, monitor: want });
      continue;
    }
    const fields = changedFields(want, have);
    changes.push({ action: fields.length ? 'update' : 'unchanged', name: want.name, url_id: have.url_id, fields, monitor: want });
  }
  const wantedNames = new Set(wanted.map((w) => w.name.toLowerCase()));
  const others = current.filter((c) => !wantedNames.has(c.name.toLowerCase()));
  if (prune) for (const c of others) changes.push({ action: 'delete', name: c.name, url_id: c.url_id, fields: [], monitor: null });
  // One endpoint per check (the API's rule: the same URL with another method or assertion is
  // another check), on the account as it would end up.
  const sameCheck = (m: Monitor) => `${m.url} ${JSON.stringify(fileCheck(m.check) ?? null)}`;
  const urlOwner = new Map<string, string>(prune ? [] : others.map((c) => [sameCheck(c), c.name]));
  for (const want of wanted) {
    if (isHeartbeat(want)) continue;
    const owner = urlOwner.get(sameCheck(want));
    if (owner !== undefined) problems.push(`${file}: monitor "${want.name}": url: ${want.url} is also the URL of "${owner}" (one endpoint per URL)`);
    else urlOwner.set(sameCheck(want), want.name);
  }
  throwProblems(file, problems);
  return changes;
}

/**
 * The plan's limits (@upfleet/proto/plan, the server's own rules), checked before anything changes;
 * each failure carries the SPEC's message.
 */
export function checkPlanLimits(file: string, changes: Change[], currentCount: number, plan: Dashboard, regions: Region[]): void {
  const ctx = planContextOf(regions.find((r) => r.primary_region));
  const problems: string[] = [];
  for (const c of changes) {
    if (!c.monitor || c.action === 'unchanged') continue;
    const features = Object.fromEntries(c.monitor.features.map((f) => [f, true]));
    const interval = c.monitor.check_frequency_seconds ?? null;
    const refused = planViolations(plan, { features, regions: c.monitor.regions, kind: c.monitor.check?.kind ?? 'http', ...(interval !== null ? { interval } : {}) }, ctx)[0];
    if (refused) problems.push(`${file}: monitor "${c.name}": ${refused.subject}: ${refused.message}`);
  }
  const count = (a: Action) => changes.filter((c) => c.action === a).length;
  if (count('create') > 0) {
    const refused = planViolations(plan, { endpoints: currentCount - count('delete') + count('create') })[0];
    if (refused) problems.push(`${file}: ${refused.message}`);
  }
  throwProblems(file, problems);
}

/** One problem is one line; several are each on a line of their own, so a file is fixed in one go. */
export function throwProblems(file: string, problems: string[]): void {
  if (problems.length === 0) return;
  if (problems.length === 1) throw new CliError('invalid', problems[0]);
  throw new CliError('invalid', `${file}: ${problems.length} problems (nothing was changed):\n${problems.map((p) => `  ${p}`).join('\n')}`);
}

export function summarize(changes: Change[]): Record<Action, number> {
  const s: Record<Action, number> = { create: 0, update: 0, delete: 0, unchanged: 0 };
  for (const c of changes) s[c.action]++;
  return s;
}
