// HTTP(S) check: a fresh connection per check (c-ares DNS, net/tls sockets, no TLS session
// reuse) so every timing is what a first-time visitor meets; the request and its response go
// through llhttp directly (h1-exchange.ts), without an undici Client per check.
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { bareHost, refusedTarget } from '../resolve';
import { exchangeH1, requestHead, type H1Response } from './h1-exchange';
import {
  describeNetError, describeTlsCode, emptyTimings, PhaseError, round, clientSecureContext,
  type ProbeOptions, type ProbePhase, type ProbeTimings,
} from '../types';

export interface HttpProbeOptions extends ProbeOptions {
  maxRedirects?: number;
  maxBodyBytes?: number;
  userAgent?: string;
  /** GET when absent */
  method?: string;
  /** extra request headers (a user-agent among them replaces the agent's); a secret one is not
   *  sent past a redirect that leaves the first origin or goes from https to http */
  headers?: Array<{ name: string; value: string; secret?: boolean }>;
  /** request body ('' or absent: none) */
  body?: string;
  /** false: the first answer is the final one, a 3xx included (default true) */
  followRedirects?: boolean;
  /** keep the final response's headers and up to this many body bytes (for assertions) */
  keepBodyBytes?: number;
}

export interface HttpProbeResult {
  /** a response arrived and its final status is below 400 */
  ok: boolean;
  phase: ProbePhase;
  error: string;
  /** status of the last response; 0 when none arrived */
  status_code: number;
  timings: ProbeTimings;
  redirects: number;
  final_url: string;
  body_bytes: number;
  body_truncated: boolean;
  /** the final response's headers (lower-case names) and body text, when keepBodyBytes asked for them */
  headers?: Record<string, string>;
  body?: string;
  /** https: days until the final server's certificate expires (for a cert_days_left assertion) */
  cert_days_left?: number;
}

export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Headers dropped on a cross-origin or downgrading redirect even when not marked secret. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

interface HopState {
  /** the certificate's expiry of the last TLS handshake, ms */
  certNotAfterMs?: number;
  phase: Exclude<ProbePhase, '' | 'timeout'>;
  socket?: net.Socket;
  /** ends the hop in progress (its connect or its exchange) with this error */
  abort?: (err: Error) => void;
  readyAt: number;
}

export async function probeHttp(url: string, opts: HttpProbeOptions): Promise<HttpProbeResult> {
  const started = performance.now();
  const timings = emptyTimings();
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const result: HttpProbeResult = {
    ok: false, phase: '', error: '', status_code: 0, timings, redirects: 0, final_url: url,
    body_bytes: 0, body_truncated: false,
  };
  const finish = (phase: ProbePhase, error: string): HttpProbeResult => {
    result.phase = phase;
    result.error = error;
    result.ok = phase === '' && result.status_code > 0;
    timings.total_ms = performance.now() - started;
    for (const k of Object.keys(timings) as (keyof ProbeTimings)[]) timings[k] = round(timings[k]);
    return result;
  };

  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return finish('http', `invalid URL: ${url}`);
  }
  const seen = new Set<string>([current.href]);
  let method = opts.method ?? 'GET';
  let body = opts.body || undefined;
  let headers = opts.headers;
  const hop: HopState = { phase: 'dns', readyAt: 0 };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abortHop(hop);
  }, opts.timeoutMs);

  try {
    for (;;) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') {
        return finish('http', `unsupported scheme ${current.protocol}`);
      }
      const out = await requestOnce(current, { ...opts, method, body, headers }, hop, timings, maxBody);
      result.status_code = out.status;
      result.cert_days_left = hop.certNotAfterMs !== undefined && current.protocol === 'https:' ? round((hop.certNotAfterMs - Date.now()) / 86_400_000) : undefined;
      if (out.headers) result.headers = out.headers;
      if (out.text !== undefined) result.body = out.text;
      result.final_url = current.href;
      result.body_bytes = out.bodyBytes;
      result.body_truncated = out.truncated;
      if (out.status >= 300 && out.status < 400 && out.location !== undefined && opts.followRedirects !== false) {
        let next: URL;
        try {
          next = new URL(out.location, current);
        } catch {
          return finish('http', `invalid redirect location: ${out.location}`);
        }
        if (seen.has(next.href)) return finish('http', `redirect loop detected at ${next.href}`);
        if (result.redirects >= maxRedirects) return finish('http', `too many redirects (more than ${maxRedirects})`);
        seen.add(next.href);
        result.redirects++;
        // Credentials stay with the origin they were written for (as browsers and undici do): once a
        // hop leaves it (another host or port, or https to http), they are not sent again.
        if (next.origin !== current.origin) headers = headers?.filter((h) => !h.secret && !CREDENTIAL_HEADERS.has(h.name.toLowerCase()));
        current = next;
        // 303, and 301/302 after a POST, continue as a GET without a body (as browsers and curl do)
        if (out.status === 303 || ((out.status === 301 || out.status === 302) && method === 'POST')) {
          method = method === 'HEAD' ? 'HEAD' : 'GET';
          body = undefined;
        }
        continue;
      }
      return out.status >= 400 ? finish('http', `HTTP ${out.status}`) : finish('', '');
    }
  } catch (err) {
    if (timedOut) return finish('timeout', `timed out after ${opts.timeoutMs} ms during ${hop.phase}`);
    if (err instanceof PhaseError) return finish(err.phase, err.message);
    return finish(hop.phase, describeNetError(err));
  } finally {
    clearTimeout(timer);
  }
}

type HopOutcome = H1Response;

// Made once: an error (with its stack trace) per timed-out check is wasted work.
const TIMED_OUT = new Error('probe timed out');

/** One request on a fresh connection of its own, read with llhttp (h1-exchange.ts). */
function requestOnce(
  target: URL, opts: HttpProbeOptions, hop: HopState, timings: ProbeTimings, maxBody: number,
): Promise<HopOutcome> {
  hop.phase = 'dns';
  const head = requestHead({
    method: opts.method ?? 'GET', path: target.pathname + target.search, host: target.host,
    headers: requestHeaders(opts), body: opts.body,
  });
  // a request that cannot be written fails before any connection is made
  if (head instanceof Error) return Promise.reject(head);
  return new Promise<HopOutcome>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      hop.abort = undefined;
      reject(err);
    };
    hop.abort = fail;
    connect(target, opts, hop, timings, (err, sock) => {
      if (settled) return void sock?.destroy();
      if (err) return fail(err);
      const ex = exchangeH1(sock!, head, {
        maxBody,
        keepBodyBytes: opts.keepBodyBytes ?? 0,
        onResponseStart: () => {
          timings.ttfb_ms += performance.now() - hop.readyAt;
        },
      });
      hop.abort = (e) => ex.abort(e);
      ex.done.then((out) => {
        settled = true;
        hop.abort = undefined;
        resolve(out);
      }, fail);
    });
  });
}

/** The agent's headers, then the check's own (a name given by the check replaces the agent's). */
function requestHeaders(opts: HttpProbeOptions): Record<string, string> {
  const h: Record<string, string> = { 'user-agent': opts.userAgent ?? 'Upfleet-Agent/0.1', accept: '*/*' };
  for (const { name, value } of opts.headers ?? []) h[name.toLowerCase()] = value;
  return h;
}

/** Ends the hop in progress at once (timeout). */
function abortHop(hop: HopState): void {
  hop.socket?.destroy();
  hop.abort?.(TIMED_OUT);
}

function connect(
  target: URL, opts: HttpProbeOptions, hop: HopState, timings: ProbeTimings,
  cb: (err: Error | null, sock?: net.Socket) => void,
): void {
  let done = false;
  const settle = (err: Error | null, sock?: net.Socket): void => {
    if (done) return;
    done = true;
    cb(err, sock);
  };
  const host = bareHost(target.hostname);
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  const t0 = performance.now();
  opts.resolver.resolve(host).then((r) => {
    timings.dns_ms += performance.now() - t0;
    if (!r.ok) return settle(new PhaseError('dns', r.error));
    const refused = refusedTarget(opts, host, r.address);
    if (refused) return settle(new PhaseError('connect', refused));
    hop.phase = 'connect';
    const t1 = performance.now();
    const sock = net.connect({ host: r.address, port, family: r.family, noDelay: true });
    hop.socket = sock;
    sock.once('error', (e) => settle(new PhaseError(hop.phase === 'tls' ? 'tls' : 'connect', describeNetError(e))));
    sock.once('connect', () => {
      timings.connect_ms += performance.now() - t1;
      if (target.protocol !== 'https:') {
        hop.phase = 'http';
        hop.readyAt = performance.now();
        return settle(null, sock);
      }
      hop.phase = 'tls';
      const t2 = performance.now();
      const ts = tls.connect({
        socket: sock,
        servername: net.isIP(host) ? undefined : host,
        secureContext: clientSecureContext(opts.extraCa),
        ALPNProtocols: ['http/1.1'],
      });
      hop.socket = ts;
      ts.once('error', (e: NodeJS.ErrnoException) => {
        const code = e.code ?? '';
        settle(new PhaseError('tls', describeTlsCode(code, e.message)));
      });
      ts.once('secureConnect', () => {
        timings.tls_ms += performance.now() - t2;
        const notAfter = Date.parse(ts.getPeerCertificate()?.valid_to ?? '');
        hop.certNotAfterMs = Number.isFinite(notAfter) ? notAfter : undefined;
        hop.phase = 'http';
        hop.readyAt = performance.now();
        settle(null, ts);
      });
    });
  }, (err) => settle(new PhaseError('dns', String(err))));
}
