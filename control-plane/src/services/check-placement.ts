// Where a check runs: the checks an endpoint needs (kind x region) and which live agent of the
// region owns each one, by rendezvous hashing (stable: an agent joining or leaving moves only its
// share). Pure functions; the assignment engine (assignments.ts) applies them to watchers.
import type { Assignment } from '@upfleet/proto';
import { fnv1a32Mixed } from '@upfleet/proto/hash';
import { buildCheckId, checkTimeoutMs, type AssignedKind } from '../checks';
import { CHECK_KIND_TABLE, endpointKindSpec } from '@upfleet/proto/check-kinds';
import type { MonitoredEndpoint } from '../store/endpoints-repo';

const kindSpec = (kind: AssignedKind) => {
  const spec = CHECK_KIND_TABLE[kind];
  if (!spec) throw new Error(`unknown check kind ${String(kind)}`);
  return spec;
};

/**
 * The checks one endpoint needs: response_code and cert_expiry only from the primary region.
 * Here the SQLite row's `url_id` becomes the proto's `endpoint_id` (see docs/architecture.md).
 */
export function checksForEndpoint(e: MonitoredEndpoint, primary: string | null, privateTargetsDenied = false, defaultResolvers: string[] = []): Assignment[] {
  const out: Assignment[] = [];
  const endpointId = e.url_id;
  const check = e.check ?? {};
  const add = (kind: AssignedKind, region: string) => {
    const spec = kindSpec(kind);
    // a browser check never runs more often than its kind allows, whatever the plan's floor
    const interval = Math.max(e.check_frequency_seconds, spec.minIntervalSeconds ?? 0);
    const timeoutS = spec.timeoutSeconds?.(check);
    out.push({
      check_id: buildCheckId(endpointId, kind, region),
      endpoint_id: endpointId,
      kind,
      url: e.url,
      interval_seconds: interval,
      timeout_ms: timeoutS ? timeoutS * 1000 : checkTimeoutMs(interval),
      region,
      retention_days: e.retention_days,
      private_targets_denied: privateTargetsDenied,
      ...spec.assignment(check, { privateTargetsDenied, defaultResolvers }),
    });
  };
  // The kinds table says which checks the endpoint's kind yields and where each runs; an unknown
  // kind throws there rather than falling into HTTP.
  const byKind = new Map<AssignedKind, Set<string>>();
  for (const y of endpointKindSpec(e.kind ?? 'http').checks) {
    if (y.feature && !e[y.feature]) continue;
    if (y.httpsOnly && !e.url.startsWith('https:')) continue;
    const regions = y.regions === 'primary' ? (primary ? [primary] : [])
      : y.regions === 'all-or-primary' && e.regions.length === 0 ? (primary ? [primary] : [])
      : e.regions;
    let set = byKind.get(y.kind);
    if (!set) byKind.set(y.kind, (set = new Set()));
    regions.forEach((r) => set.add(r));
  }
  byKind.forEach((regions, kind) => regions.forEach((r) => add(kind, r)));
  return out;
}

/** Rendezvous score: FNV-1a with a finaliser; cheap enough for 100k checks x agents. */
function score(agentId: string, checkId: string): number {
  return fnv1a32Mixed(`${agentId}|${checkId}`);
}

export function ownerOf(checkId: string, agents: string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const a of agents) {
    const s = score(a, checkId);
    if (s > bestScore || (s === bestScore && best !== null && a < best)) {
      best = a;
      bestScore = s;
    }
  }
  return best;
}

/**
 * ownerOf for many checks among the same agents, as one function: each agent's FNV-1a state after
 * `<agentId>|` is computed once, so a check costs its own characters per agent and no string is
 * built per pair (a restart places every check of every region at once). Same answer as ownerOf.
 */
export function ownerPicker(agents: string[]): (checkId: string) => string | null {
  const states = agents.map((a) => {
    let h = 0x811c9dc5;
    const prefix = `${a}|`;
    for (let i = 0; i < prefix.length; i++) h = Math.imul(h ^ prefix.charCodeAt(i), 0x01000193);
    return h;
  });
  return (checkId) => {
    let best: string | null = null;
    let bestScore = -1;
    for (let k = 0; k < agents.length; k++) {
      let h = states[k];
      for (let i = 0; i < checkId.length; i++) h = Math.imul(h ^ checkId.charCodeAt(i), 0x01000193);
      h >>>= 0;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      const s = h >>> 0;
      const a = agents[k];
      if (s > bestScore || (s === bestScore && best !== null && a < best)) {
        best = a;
        bestScore = s;
      }
    }
    return best;
  };
}
