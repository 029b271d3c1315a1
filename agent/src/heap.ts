// V8 heap sizing for an agent process. The agent's garbage is short-lived (each check's sockets,
// buffers and result objects): with V8's defaults the young generation grows to 3 × 16 MB and the
// old generation to 1.5-4x its live size before a full GC, so RSS ends up 2-3x the live heap.
// Both flags below are read at every GC, so setting them after start works (a single executable
// cannot take node flags other than through NODE_OPTIONS). UPFLEET_V8_DEFAULTS=1 leaves V8 alone.
import v8 from 'node:v8';

export const AGENT_V8_FLAGS = '--semi-space-growth-factor=1 --heap-growing-percent=20';
/** V8's own values of the same flags. */
export const V8_DEFAULT_FLAGS = '--semi-space-growth-factor=2 --heap-growing-percent=0';

let tuned = false;

/** Applies AGENT_V8_FLAGS to this process unless UPFLEET_V8_DEFAULTS=1; says whether it did. */
export function tuneAgentHeap(env: Record<string, string | undefined> = process.env): boolean {
  if (env.UPFLEET_V8_DEFAULTS === '1') return false;
  v8.setFlagsFromString(AGENT_V8_FLAGS);
  tuned = true;
  return true;
}

/**
 * Under lasting overload (the adaptive runner has started probe threads) throughput matters more
 * than a few MB: the main thread goes back to V8's own sizing. With the small young generation
 * it spent the time of ~15 % of its checks in scavenges (bench:agent-throughput, probe threads
 * auto: 6,100 checks/s tuned, 7,800 with V8's sizing, same run conditions). Says whether it changed anything.
 */
export function relaxAgentHeap(): boolean {
  if (!tuned) return false;
  v8.setFlagsFromString(V8_DEFAULT_FLAGS);
  tuned = false;
  return true;
}
