// "Run now": the agents of this process that run a check once on request (they set accepts_run_now
// on their assignment stream), and the runs waiting for their answer. A run goes to one such agent
// over its stream; its result comes back through ReportRunNow and settles the waiting request.
// In memory and per process: an agent connected to another control-plane process is not seen here
// (docs/scaling.md, "Run now in a cluster").
import crypto from 'node:crypto';
import type { Assignment, AssignmentUpdate, CheckResult } from '@upfleet/proto';
import { AppError } from '../errors';

export interface RunNowAgent {
  agentId: string;
  region: string;
  browserChecks: boolean;
  send(u: AssignmentUpdate): void;
}

export const NO_BROWSER_AGENT = 'No agent that can run browser checks is connected';
/** How long past the check's own timeout a run is waited for (queueing for a browser slot, the link). */
export const RUN_NOW_GRACE_MS = 15_000;

export function createRunNowDispatcher(opts: { now?: () => number; graceMs?: number } = {}) {
  const graceMs = opts.graceMs ?? RUN_NOW_GRACE_MS;
  const agents = new Set<RunNowAgent>();
  const waiting = new Map<string, { agentId: string; settle(r: CheckResult): void }>();
  let turn = 0;

  return {
    /** An agent's stream that accepts RunNow; the returned function removes it when the stream ends. */
    attach(a: RunNowAgent): () => void {
      agents.add(a);
      return () => agents.delete(a);
    },

    /**
     * Runs `check` once on a connected browser-capable agent (of `region` when given), resolving with
     * its result; 503 when there is none, 504 when it does not answer within the timeout and the grace.
     */
    run(check: Assignment, region: string | null): Promise<CheckResult> {
      const able = [...agents].filter((a) => a.browserChecks && (region === null || a.region === region));
      if (able.length === 0) return Promise.reject(new AppError('unavailable', NO_BROWSER_AGENT));
      // Turn by turn, so repeated runs spread over the agents of a region.
      const agent = able[turn++ % able.length];
      const runId = crypto.randomUUID();
      return new Promise<CheckResult>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(runId);
          reject(new AppError('timeout', `The agent did not answer within ${Math.round((check.timeout_ms + graceMs) / 1000)} seconds`));
        }, check.timeout_ms + graceMs);
        waiting.set(runId, {
          agentId: agent.agentId,
          settle: (r) => {
            clearTimeout(timer);
            waiting.delete(runId);
            resolve(r);
          },
        });
        agent.send({ version: 0, update: 'run_now', run_now: { run_id: runId, check: { ...check, region: agent.region } } });
      });
    },

    /** An agent's answer: true when a request was waiting for it from this agent. */
    settle(agentId: string, runId: string, result: CheckResult): boolean {
      const w = waiting.get(runId);
      if (!w || w.agentId !== agentId) return false;
      w.settle(result);
      return true;
    },

    /** Connected agents that accept RunNow (tests, status). */
    count: () => agents.size,
  };
}
export type RunNowDispatcher = ReturnType<typeof createRunNowDispatcher>;
