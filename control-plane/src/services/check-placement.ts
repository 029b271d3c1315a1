// Where a check runs: the checks an endpoint needs (kind x region) and which live agent of the
// region owns each one, by rendezvous hashing (stable: an agent joining or leaving moves only its
// share). Pure functions; the assignment engine (assignments.ts) applies them to watchers.
import type { Assignment } from '@upfleet/proto';
import { fnv1a32Mixed } from '@upfleet/proto/hash';
import { buildCheckId, checkTimeoutMs, type AssignedKind } from '../checks';
import type { MonitoredEndpoint } from '../store/endpoints-repo';

/**
 * The checks one endpoint needs: response_code and cert_expiry only from the primary region.
 * Here the SQLite row's `url_id` becomes the proto's `endpoint_id` (see docs/architecture.md).
 */
export function checksForEndpoint(e: MonitoredEndpoint, primary: string | null, privateTargetsDenied = false): Assignment[] {
  const out: Assignment[] = [];
  const endpointId = e.url_id;
  const add = (kind: AssignedKind, region: string) => {
    const interval = e.check_frequency_seconds;
    out.push({
      check_id: buildCheckId(endpointId, kind, region),
      endpoint_id: endpointId,
      kind,
      url: e.url,
      interval_seconds: interval,
      timeout_ms: checkTimeoutMs(interval),
      region,
      retention_days: e.retention_days,
      private_targets_denied: privateTargetsDenied,
    });
  };
  const httpRegions = new Set<string>();
  if (e.response_time) e.regions.forEach((r) => httpRegions.add(r));
  if (e.response_code && primary) httpRegions.add(primary);
  httpRegions.forEach((r) => add('CHECK_KIND_HTTP', r));
  if (e.cert_expiry && primary && e.url.startsWith('https:')) add('CHECK_KIND_TLS', primary);
  if (e.ping_host) e.regions.forEach((r) => add('CHECK_KIND_PING', r));
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
