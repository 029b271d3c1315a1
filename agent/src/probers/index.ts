// The probes: pure functions from a target to a result object. No gRPC, no SQLite, never throw.
export { probeHttp, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REDIRECTS, type HttpProbeOptions, type HttpProbeResult } from './http-probe';
export { probeTls, parseCertificate, tlsTarget, type TlsProbeResult } from './tls-probe';
export { probePing, pingTarget, type PingMethod, type PingProbeOptions, type PingProbeResult } from './ping-probe';
export { createHostResolver, isPrivateAddress, refusedTarget, type HostResolver, type ResolveOutcome } from './resolve';
export type { ProbeOptions, ProbePhase, ProbeTimings } from './types';
