// Heartbeat calls of one session: one at once, then every interval the control plane asked for.
// A failed call ends the session; a good one proves the link is up.
import type { AgentServiceClient, HeartbeatRequest, grpc } from '@upfleet/proto';

export interface HeartbeatLoop { stop(): void }

export function startHeartbeat(
  client: AgentServiceClient, md: grpc.Metadata, intervalSeconds: number, request: () => HeartbeatRequest,
  on: { ok(): void; error(err: Error): void },
): HeartbeatLoop {
  const beat = (): void => {
    client.Heartbeat(request(), md, { deadline: Date.now() + 10_000 }, (err) => (err ? on.error(err) : on.ok()));
  };
  beat();
  const timer = setInterval(beat, Math.max(1, intervalSeconds || 10) * 1000);
  return { stop: () => clearInterval(timer) };
}
