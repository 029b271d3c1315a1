// One connected session with the control plane: the assignment watch, the result report stream
// and the heartbeat, started together and ended together when any of them fails.
import type { AgentServiceClient, HeartbeatRequest } from '@upfleet/proto';
import type { Logger } from 'pino';
import type { AgentIdentity } from '../buffer/identity-store';
import { watchAssignments, type WatchDeps } from './assignment-watch';
import { agentMetadata } from './client';
import { startHeartbeat } from './heartbeat';
import { openReportStream, type ReportCounts, type ReportOptions } from './report-stream';

export interface SessionDeps extends WatchDeps, Omit<ReportOptions, 'logger'> {
  heartbeat: () => HeartbeatRequest;
  logger: Logger;
}

export interface SessionEvents {
  /** a call came back: the link is up */
  connected(this: void): void;
  /** an assignment update of this version was applied */
  applied(this: void, version: number): void;
}

export interface Session {
  /** settles when the session ends: rejected with the error that ended it, resolved on close() */
  done: Promise<void>;
  pump(force: boolean): void;
  /** pending rows and in-flight batches */
  idle(): boolean;
  close(): void;
}

export function openSession(
  client: AgentServiceClient, identity: AgentIdentity, knownVersion: number, deps: SessionDeps,
  counts: ReportCounts, events: SessionEvents,
): Session {
  const md = agentMetadata(identity.agent_id, identity.agent_secret);
  let settle!: (err?: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => (err ? reject(err) : resolve());
  });
  let ended = false;
  const end = (err?: Error): void => {
    if (ended) return;
    ended = true;
    heartbeat.stop();
    watch.close();
    report.close();
    settle(err);
  };

  const watch = watchAssignments(client, md, knownVersion, deps, {
    connected: events.connected, applied: events.applied, end,
  });
  const report = openReportStream(client, md, deps, counts, end);
  const heartbeat = startHeartbeat(client, md, identity.heartbeat_interval_seconds, deps.heartbeat, {
    ok: events.connected, error: end,
  });
  report.pump(false);

  return {
    done,
    pump: (force) => { if (!ended) report.pump(force); },
    idle: () => report.idle(),
    close: () => end(),
  };
}
