// The WatchAssignments stream of one session: a snapshot replaces the scheduler's checks and the
// saved ones, a delta edits both. Assignments the agent cannot run as given are refused here.
import type { AgentServiceClient, Assignment, AssignmentUpdate, CheckResult, RunNowRequest, grpc } from '@upfleet/proto';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { AssignmentStore } from '../buffer/assignment-store';
import type { Scheduler } from '../scheduler/scheduler';

export interface AssignmentGate {
  /** the assignments that can run; each refused check is logged and counted once */
  accept(list: Assignment[]): { accepted: Assignment[]; refused: string[] };
}

/**
 * The control plane always sends a positive `timeout_ms`; the agent has no default of its own
 * that could disagree, so an assignment without one is refused (and not scheduled).
 */
export function createAssignmentGate(logger: Logger, registry?: Registry): AssignmentGate {
  const refusedTotal = registry && new Counter({
    name: 'upfleet_agent_assignments_refused_total',
    help: 'Assignments refused because the agent cannot run them as given, by reason.',
    labelNames: ['reason'], registers: [registry],
  });
  const told = new Set<string>();
  return {
    accept(list) {
      const accepted: Assignment[] = [];
      const refused: string[] = [];
      for (const a of list) {
        if (Number.isFinite(a.timeout_ms) && a.timeout_ms > 0) {
          accepted.push(a);
          told.delete(a.check_id);
          continue;
        }
        refused.push(a.check_id);
        if (told.has(a.check_id)) continue;
        told.add(a.check_id);
        refusedTotal?.inc({ reason: 'no_timeout' });
        logger.error({ checkId: a.check_id, timeoutMs: a.timeout_ms }, 'assignment refused: no positive timeout_ms; not scheduled');
      }
      return { accepted, refused };
    },
  };
}

export interface WatchDeps {
  scheduler: Pick<Scheduler, 'replaceAll' | 'upsert' | 'remove'>;
  assignments: AssignmentStore;
  gate: AssignmentGate;
  logger: Logger;
  /** this agent's release, sent on connect */
  version?: string;
  /** whether this agent can run browser checks (placement sends it none otherwise) */
  browserChecks?: boolean;
  /**
   * "Run now": runs a check once, outside the schedule (same runner, private-target rule and browser
   * cap as scheduled checks). Absent: the agent does not say it accepts RunNow, and is sent none.
   */
  runNow?: (check: Assignment) => Promise<CheckResult>;
}

export interface AssignmentWatch { close(): void }

export function watchAssignments(
  client: AgentServiceClient, md: grpc.Metadata, knownVersion: number, deps: WatchDeps,
  on: { connected(): void; applied(version: number): void; end(err: Error): void },
): AssignmentWatch {
  const log = deps.logger;
  // A snapshot sent in chunks is assembled here and applied whole: applying a chunk alone would
  // drop every check of the later ones until they came (or for good, if the stream ended first).
  let partial: { version: number; assignments: Assignment[] } | null = null;
  const apply = (u: AssignmentUpdate): void => {
    // `update` names the oneof member that is set; unset members decode as null.
    const kind = u.update ?? (u.snapshot ? 'snapshot' : u.delta ? 'delta' : undefined);
    if (kind === 'snapshot' && u.snapshot) {
      const chunk = u.snapshot.assignments ?? [];
      if (partial && partial.version !== u.version) partial = null; // a new snapshot replaces an unfinished one
      if (u.snapshot.more) {
        partial ??= { version: u.version, assignments: [] };
        for (const a of chunk) partial.assignments.push(a);
        return;
      }
      const whole = partial ? [...partial.assignments, ...chunk] : chunk;
      partial = null;
      const { accepted } = deps.gate.accept(whole);
      deps.scheduler.replaceAll(accepted);
      deps.assignments.saveSnapshot(u.version, accepted);
      log.info({ version: u.version, assignments: accepted.length }, 'assignment snapshot');
    } else if (kind === 'run_now' && u.run_now) {
      runOnce(u.run_now);
      return; // not an assignment version
    } else if (kind === 'delta' && u.delta) {
      const { accepted: ups, refused } = deps.gate.accept(u.delta.upserts ?? []);
      // a refused edit must not leave the previous version of the check running
      const removed = [...(u.delta.removed_check_ids ?? []), ...refused];
      deps.scheduler.remove(removed);
      deps.scheduler.upsert(ups);
      deps.assignments.applyDelta(u.version, ups, removed);
      log.debug({ version: u.version, upserts: ups.length, removed: removed.length }, 'assignment delta');
    }
    on.applied(u.version);
  };

  /** Runs a RunNowRequest and answers it with ReportRunNow; a result the control plane no longer waits for is dropped. */
  const runOnce = (req: RunNowRequest): void => {
    const check = req.check;
    const runNow = deps.runNow;
    if (!check || !runNow) return;
    log.info({ runId: req.run_id, url: check.url }, 'run now');
    void runNow(check)
      .then((result) => new Promise<void>((resolve) => {
        client.ReportRunNow({ run_id: req.run_id, result }, md, { deadline: Date.now() + 30_000 }, (err, ack) => {
          if (err) log.warn({ runId: req.run_id, err: err.message }, 'run now result not delivered');
          else if (!ack?.accepted) log.info({ runId: req.run_id }, 'run now result came too late');
          resolve();
        });
      }))
      .catch((err: unknown) => log.error({ runId: req.run_id, err }, 'run now failed'));
  };

  const watch = client.WatchAssignments({
    known_version: knownVersion, agent_version: deps.version ?? '', accepts_snapshot_chunks: true, browser_checks: deps.browserChecks ?? false,
    accepts_run_now: deps.runNow !== undefined,
  }, md);
  watch.on('data', (u: AssignmentUpdate) => {
    on.connected();
    try {
      apply(u);
    } catch (err) {
      log.error({ err }, 'cannot apply assignment update');
    }
  });
  watch.on('error', (err) => on.end(err));
  watch.on('end', () => on.end(new Error('assignment stream ended by the control plane')));
  return {
    close() {
      watch.removeAllListeners('data');
      watch.on('error', () => {});
      watch.cancel();
    },
  };
}
