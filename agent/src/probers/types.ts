// Shapes shared by the probes. Probes return these and never throw: a failing target is data.
import tls from 'node:tls';
import type { HostResolver } from './resolve';

/** 'step': a browser check's step failed (its error names the step). */
export type ProbePhase = '' | 'dns' | 'connect' | 'tls' | 'http' | 'timeout' | 'assertion' | 'step';

export interface ProbeTimings {
  dns_ms: number;
  connect_ms: number;
  tls_ms: number;
  /** wait from a ready connection to the first response byte (summed over redirect hops) */
  ttfb_ms: number;
  total_ms: number;
}

export interface ProbeOptions {
  timeoutMs: number;
  resolver: HostResolver;
  /** false: refuse private/loopback/link-local/metadata addresses at connect time */
  allowPrivateTargets: boolean;
  /** which addresses count as private; isPrivateAddress unless a test lab on loopback says otherwise */
  isPrivate?: (address: string) => boolean;
  /** extra PEM CAs trusted besides the system roots (self-hosted PKI, tests) */
  extraCa?: string[];
}

export function emptyTimings(): ProbeTimings {
  return { dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 0, total_ms: 0 };
}

/** An error that already knows which phase it belongs to. */
export class PhaseError extends Error {
  constructor(readonly phase: Exclude<ProbePhase, ''>, message: string) {
    super(message);
  }
}

const contexts = new WeakMap<string[], tls.SecureContext>();
let defaultContext: tls.SecureContext | undefined;

/**
 * One client SecureContext per trust list, shared by all checks. Without it every tls.connect
 * parses the ~140 system roots again (CPU) into a native store the GC frees late (memory).
 * Node's client contexts keep no sessions of their own, so nothing is resumed across checks.
 */
export function clientSecureContext(extra: string[] | undefined): tls.SecureContext {
  if (!extra || extra.length === 0) return (defaultContext ??= tls.createSecureContext({}));
  let ctx = contexts.get(extra);
  if (!ctx) {
    // `ca` replaces the system roots, so add them back next to the extra CAs.
    ctx = tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra] });
    contexts.set(extra, ctx);
  }
  return ctx;
}

const TLS_TEXT: Record<string, string> = {
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not trusted: unable to verify the issuer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate not trusted: unknown issuer',
  ERR_TLS_CERT_ALTNAME_INVALID: 'hostname mismatch',
  CERT_REVOKED: 'certificate revoked',
};

/** A short text for a TLS verification code (`authorizationError` or err.code). */
export function describeTlsCode(code: string, detail?: string): string {
  const text = TLS_TEXT[code];
  if (!text) return detail || code;
  return code === 'ERR_TLS_CERT_ALTNAME_INVALID' && detail ? `hostname mismatch: ${detail}` : text;
}

/** Socket and TLS errors as one short line a user can act on. */
export function describeNetError(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { reason?: string };
  switch (e.code) {
    case 'ECONNREFUSED': return 'connection refused';
    case 'ECONNRESET': return 'connection reset by peer';
    case 'EHOSTUNREACH': return 'host unreachable';
    case 'ENETUNREACH': return 'network unreachable';
    case 'EPIPE': return 'connection closed while sending';
    case 'UND_ERR_SOCKET': return 'connection closed before a complete response';
    default:
      if (e.code && TLS_TEXT[e.code]) return describeTlsCode(e.code, e.reason ?? e.message);
      return e.message || String(err);
  }
}

export function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
