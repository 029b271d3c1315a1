// Certificate-expiry check: a TLS handshake that does not reject (so the certificate can still be
// read), the peer certificate parsed with node-forge, and the verification verdict recorded.
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import forge from 'node-forge';
import { bareHost, refusedTarget } from '../resolve';
import {
  describeNetError, describeTlsCode, emptyTimings, round, clientSecureContext,
  type ProbeOptions, type ProbePhase, type ProbeTimings,
} from '../types';

export interface TlsProbeResult {
  /** handshake done, certificate trusted for the host name and not expired */
  ok: boolean;
  phase: ProbePhase;
  error: string;
  timings: ProbeTimings;
  /** fractional days until notAfter; negative once expired; 0 when no certificate was read */
  cert_days_left: number;
  cert_not_after_ms: number;
  cert_issuer: string;
  cert_subject: string;
  authorized: boolean;
}

const DAY_MS = 86_400_000;

/** host and port of a TLS check from a URL or a bare host[:port]; 443 unless the URL says. */
export function tlsTarget(input: string): { host: string; port: number } | undefined {
  try {
    const u = new URL(input.includes('://') ? input : `https://${input}`);
    const port = u.protocol === 'https:' ? Number(u.port) || 443 : 443;
    return { host: bareHost(u.hostname), port };
  } catch {
    return undefined;
  }
}

interface CertFacts { notAfterMs: number; issuer: string; subject: string }

function dnToText(attrs: forge.pki.CertificateField[]): string {
  return attrs
    .filter((a) => a.shortName && typeof a.value === 'string')
    .map((a) => `${a.shortName}=${a.value as string}`)
    .join(', ');
}

/** node-forge reads RSA certificates; for EC keys (which forge cannot load) node's X509 parser. */
export function parseCertificate(der: Buffer): CertFacts {
  try {
    const cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))));
    return {
      notAfterMs: cert.validity.notAfter.getTime(),
      issuer: dnToText(cert.issuer.attributes),
      subject: dnToText(cert.subject.attributes),
    };
  } catch {
    const x = new X509Certificate(der);
    const oneLine = (s: string): string => s.split('\n').filter(Boolean).join(', ');
    return { notAfterMs: Date.parse(x.validTo), issuer: oneLine(x.issuer), subject: oneLine(x.subject) };
  }
}

export async function probeTls(input: string, opts: ProbeOptions): Promise<TlsProbeResult> {
  const started = performance.now();
  const timings = emptyTimings();
  const result: TlsProbeResult = {
    ok: false, phase: '', error: '', timings, cert_days_left: 0, cert_not_after_ms: 0,
    cert_issuer: '', cert_subject: '', authorized: false,
  };
  const finish = (phase: ProbePhase, error: string): TlsProbeResult => {
    result.phase = phase;
    result.error = error;
    result.ok = phase === '' && !error;
    timings.total_ms = performance.now() - started;
    for (const k of Object.keys(timings) as (keyof ProbeTimings)[]) timings[k] = round(timings[k]);
    return result;
  };

  const target = tlsTarget(input);
  if (!target) return finish('tls', `invalid URL: ${input}`);

  const t0 = performance.now();
  const r = await opts.resolver.resolve(target.host);
  timings.dns_ms = performance.now() - t0;
  if (!r.ok) return finish('dns', r.error);
  const refused = refusedTarget(opts, bareHost(target.host), r.address);
  if (refused) return finish('connect', refused);

  return new Promise<TlsProbeResult>((resolve) => {
    let phase: 'connect' | 'tls' = 'connect';
    let settled = false;
    const t1 = performance.now();
    let t2 = t1;
    const sock = net.connect({ host: r.address, port: target.port, family: r.family, noDelay: true });
    const done = (p: ProbePhase, error: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(finish(p, error));
    };
    const timer = setTimeout(
      () => done('timeout', `timed out after ${opts.timeoutMs} ms during ${phase}`),
      opts.timeoutMs,
    );
    sock.once('error', (e) => done(phase, describeNetError(e)));
    sock.once('connect', () => {
      timings.connect_ms = performance.now() - t1;
      phase = 'tls';
      t2 = performance.now();
      const ts = tls.connect({
        socket: sock,
        servername: net.isIP(target.host) ? undefined : target.host,
        // The hostname check still runs for a hostname servername; we only keep the verdict.
        rejectUnauthorized: false,
        secureContext: clientSecureContext(opts.extraCa),
      });
      ts.once('error', (e) => done('tls', describeNetError(e)));
      ts.once('secureConnect', () => {
        timings.tls_ms = performance.now() - t2;
        const peer = ts.getPeerCertificate(false);
        ts.destroy();
        if (!peer || !peer.raw) return done('tls', 'server sent no certificate');
        let facts: CertFacts;
        try {
          facts = parseCertificate(peer.raw);
        } catch (err) {
          return done('tls', `unreadable certificate: ${(err as Error).message}`);
        }
        result.cert_not_after_ms = facts.notAfterMs;
        result.cert_days_left = Math.round(((facts.notAfterMs - Date.now()) / DAY_MS) * 1e4) / 1e4;
        result.cert_issuer = facts.issuer;
        result.cert_subject = facts.subject;
        result.authorized = ts.authorized;
        if (result.cert_days_left <= 0) return done('tls', 'certificate has expired');
        if (!ts.authorized) {
          const code = String(ts.authorizationError ?? '');
          const detail = code === 'ERR_TLS_CERT_ALTNAME_INVALID'
            ? `certificate is not valid for ${target.host}`
            : undefined;
          return done('tls', describeTlsCode(code, detail));
        }
        done('', '');
      });
    });
  });
}
