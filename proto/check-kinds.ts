// The one table of check kinds both sides share: a proto kind and its short name (the middle part
// of a check id, the ClickHouse `kind` column, the agent's metric label, the agent's prober folder
// agent/src/probers/<name>/). A new kind is a proto enum value, one entry here and one prober.
import type { CheckKind } from './index';

/** A kind an assignment can have (the proto's UNSPECIFIED is never assigned). */
export type AssignedKind = Exclude<CheckKind, 'CHECK_KIND_UNSPECIFIED'>;
/** A kind's short name. */
export type KindName = 'http' | 'tls' | 'ping' | 'tcp' | 'dns';

export const CHECK_KINDS: Readonly<Record<AssignedKind, KindName>> = {
  CHECK_KIND_HTTP: 'http',
  CHECK_KIND_TLS: 'tls',
  CHECK_KIND_PING: 'ping',
  CHECK_KIND_TCP: 'tcp',
  CHECK_KIND_DNS: 'dns',
};

/** The short name of a proto kind, or null for UNSPECIFIED and anything unknown. */
export function kindName(kind: string): KindName | null {
  return Object.hasOwn(CHECK_KINDS, kind) ? CHECK_KINDS[kind as AssignedKind] : null;
}
