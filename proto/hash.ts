// Stable string hashing shared by the control plane (rendezvous ownership) and the agent
// (per-check start offsets). Both sides must agree bit for bit, so it lives in proto/.

/** FNV-1a: a stable, well-spread 32-bit hash of a string. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** FNV-1a followed by a murmur3-style finaliser: better avalanche for rendezvous scores. */
export function fnv1a32Mixed(s: string): number {
  let h = fnv1a32(s);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}
