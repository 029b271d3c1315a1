// The alerting state machine. A region is confirmed down after CONFIRM_COUNT consecutive failures
// and up after as many passes (confirmRegion, pure). When a region flips, its condition is
// re-aggregated: down when a quorum of its regions is down (endpoint-state.ts), and a condition
// that changes state more than FLAP_MAX_CHANGES times in FLAP_WINDOW_MS flaps, staying quiet until
// it has held for FLAP_SETTLE_MS. Decisions are queued as ops the evaluator runs in its transaction.
import { CONFIRM_FAILURES } from '@upfleet/proto/outcome';
import { regionStateKey, type EndpointCache, type EndpointContext, type EndpointState } from './endpoint-state';
import type { IncidentBook } from './incidents';
import type { AlertingRepo, ConditionRow, RegionStateRow } from './repo';

/** The confirmation count, shared with the agent's fast confirmation (@upfleet/proto/outcome). */
export const CONFIRM_COUNT = CONFIRM_FAILURES;
export const FLAP_WINDOW_MS = 30 * 60_000;
/** More state changes than this within the window make a condition flap. */
export const FLAP_MAX_CHANGES = 4;
/** A flapping condition has settled when its state has held this long. */
export const FLAP_SETTLE_MS = 15 * 60_000;

/** What one evaluated batch will write, in one transaction; ops return deliveries queued. */
export interface PendingWrites {
  ops: Array<() => number>;
  regions: Map<string, RegionStateRow>;
  conditions: Map<string, ConditionRow>;
  /** Endpoints whose memory changed (reloaded from SQLite if the transaction fails). */
  touched: Set<number>;
}

/** Counts one result into a region's state; `changed` when a counter moved, `flipped` when the region did. */
export function confirmRegion(rs: RegionStateRow, failing: boolean, cause: string): { changed: boolean; flipped: boolean } {
  const { fails, passes, down } = rs;
  let flipped = false;
  if (failing) {
    rs.fails = Math.min(fails + 1, CONFIRM_COUNT);
    rs.passes = 0;
    if (!down) rs.cause = cause;
    if (rs.fails >= CONFIRM_COUNT && !down) {
      rs.down = 1;
      flipped = true;
    }
  } else {
    rs.fails = 0;
    // Passes only count towards recovery: an up region that passes changes nothing (no write).
    if (down) {
      rs.passes = Math.min(passes + 1, CONFIRM_COUNT);
      if (rs.passes >= CONFIRM_COUNT) {
        rs.down = 0;
        rs.passes = 0;
        flipped = true;
      }
    }
  }
  return { changed: rs.fails !== fails || rs.passes !== passes || rs.down !== down, flipped };
}

export function createConditionDecider(repo: AlertingRepo, cache: EndpointCache, incidents: IncidentBook) {
  /** Re-aggregates one condition after a region flipped (or while it flaps) and queues what follows. */
  return function decide(ctx: EndpointContext, st: EndpointState, condition: string, t: number, pending: PendingWrites): void {
    const urlId = ctx.row.url_id;
    const { down: downRegions, quorum: isDown } = cache.coverage(ctx, st, condition);
    let cs = st.conditions.get(condition);
    if (!cs) {
      cs = { down: false, changes: [], flapping: false };
      st.conditions.set(condition, cs);
    }
    const downLabels = downRegions.map(cache.labelOf);
    const cause = downRegions.map((g) => st.regions.get(regionStateKey(condition, g))!.cause).filter(Boolean).join('; ');
    const save = () => {
      pending.conditions.set(`${urlId}|${condition}`, { url_id: urlId, condition, down: cs.down ? 1 : 0, changes: JSON.stringify(cs.changes), flapping: cs.flapping ? 1 : 0 });
      pending.touched.add(urlId);
    };
    const { ops } = pending;

    if (isDown !== cs.down) {
      cs.changes = [...cs.changes.filter((c) => c > t - FLAP_WINDOW_MS), t];
      cs.down = isDown;
      save();
      if (cs.flapping) return; // quiet until it settles
      if (cs.changes.length > FLAP_MAX_CHANGES) {
        cs.flapping = true;
        const flapCause = `flapping: changed state ${cs.changes.length} times in 30 minutes`;
        ops.push(() => {
          const open = repo.openIncident(urlId, condition);
          if (open) {
            repo.updateIncident(open.incident_id, open.regions, `${open.cause} (${flapCause})`, true);
            return 0;
          }
          return incidents.open(ctx, condition, downLabels, `${cause} (${flapCause})`, true, t);
        });
        return;
      }
      ops.push(() => (isDown ? incidents.open(ctx, condition, downLabels, cause, false, t) : incidents.resolve(ctx, condition, t)));
      return;
    }
    if (cs.flapping) {
      const last = cs.changes[cs.changes.length - 1] ?? 0;
      if (t - last < FLAP_SETTLE_MS) return;
      cs.flapping = false;
      cs.changes = [];
      save();
      ops.push(() => {
        const open = repo.openIncident(urlId, condition);
        if (!isDown) return open ? incidents.resolve(ctx, condition, t) : 0;
        if (open) {
          repo.updateIncident(open.incident_id, JSON.stringify(downLabels), cause, false);
          return 0;
        }
        return incidents.open(ctx, condition, downLabels, cause, false, t);
      });
      return;
    }
    if (isDown) {
      // Still down; keep the incident's region list current without telling anyone again.
      ops.push(() => {
        const open = repo.openIncident(urlId, condition);
        if (open && open.regions !== JSON.stringify(downLabels) && !open.flapping) repo.updateIncident(open.incident_id, JSON.stringify(downLabels), open.cause, false);
        return 0;
      });
    }
  };
}
