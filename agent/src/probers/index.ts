// The probers, one folder per check kind (the grafana synthetic-monitoring agent's
// internal/prober/<kind> layout): pure from a target to result fields. No gRPC, no SQLite, never
// throw. A new kind is one folder plus one line in PROBERS (and its entry in @upfleet/proto/check-kinds).
import { httpProber } from './http/index';
import { pingProber } from './ping/index';
import type { Prober } from './prober';
import { tlsProber } from './tls/index';
import { tcpProber } from './tcp/index';
import { dnsProber } from './dns/index';
import { browserProber } from './browser/index';

export const PROBERS: readonly Prober[] = [httpProber, tlsProber, pingProber, tcpProber, dnsProber, browserProber];

const byKind = new Map<string, Prober>(PROBERS.map((p) => [p.kind, p]));
/** The prober of a kind, or undefined for UNSPECIFIED and anything unknown. */
export const proberFor = (kind: string): Prober | undefined => byKind.get(kind);

export type { Prober, ProberOptions, ProbedFields, BrowserRuntime } from './prober';
export { runBrowserCheck, createLimiter, browserSupport, type BrowserRunOptions, type BrowserSupport, type Limiter } from './browser/index';
export { probeHttp, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REDIRECTS, type HttpProbeOptions, type HttpProbeResult } from './http/http-probe';
export { probeTls, parseCertificate, tlsTarget, type TlsProbeResult } from './tls/tls-probe';
export { probePing, pingTarget, type PingMethod, type PingProbeOptions, type PingProbeResult } from './ping/ping-probe';
export { probeTcp, type TcpProbeResult } from './tcp/tcp-probe';
export { probeDns, type DnsProbeResult } from './dns/dns-probe';
export { createHostResolver, isPrivateAddress, refusedTarget, type HostResolver, type ResolveOutcome } from './resolve';
export type { ProbeOptions, ProbePhase, ProbeTimings } from './types';
