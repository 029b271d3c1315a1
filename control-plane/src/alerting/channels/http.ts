// One HTTP client for every HTTP channel: timeouts, the private-target guard at connect time (for
// user-given URLs), and one rule for what an answer means (2xx ok, 429 retry after Retry-After,
// other 4xx final, 5xx and network errors retried).
import dns from 'node:dns';
import net from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { isPrivateAddress } from '@upfleet/proto/targets';
import type { SendOutcome } from '../types';

export const TARGET_NOT_ALLOWED = 'target address not allowed';
const TIMEOUT_MS = 10_000;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A dispatcher that refuses to connect to private, loopback, link-local or metadata addresses. */
export function createGuardedDispatcher(): Dispatcher {
  const lookup = (hostname: string, options: dns.LookupOptions, cb: LookupCallback) => {
    dns.lookup(hostname, options, (err, address, family) => {
      if (err) return cb(err, '', 0);
      const list = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
      if (list.some((a) => isPrivateAddress(a.address))) return cb(Object.assign(new Error(TARGET_NOT_ALLOWED), { code: 'EPRIVATE' }), '', 0);
      cb(null, address, family);
    });
  };
  return new Agent({ connect: { lookup: lookup, timeout: TIMEOUT_MS } });
}

export interface HttpSender {
  post(url: string, init: { headers: Record<string, string>; body: string; guarded: boolean }): Promise<HttpAnswer>;
}

export type HttpAnswer =
  | { ok: true; status: number; headers: Record<string, string | string[] | undefined>; body: string }
  | { ok: false; outcome: SendOutcome };

export function createHttpSender(opts: { allowPrivateTargets: boolean }): HttpSender {
  const plain = new Agent({ connect: { timeout: TIMEOUT_MS } });
  const guarded = opts.allowPrivateTargets ? plain : createGuardedDispatcher();
  return {
    async post(url, init) {
      let dispatcher: Dispatcher = plain;
      if (init.guarded && !opts.allowPrivateTargets) {
        const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
        // IP literals never reach the lookup hook.
        if (net.isIP(host) && isPrivateAddress(host)) return { ok: false, outcome: { ok: false, final: true, error: TARGET_NOT_ALLOWED } };
        dispatcher = guarded;
      }
      try {
        const res = await request(url, {
          method: 'POST', headers: init.headers, body: init.body, dispatcher,
          headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS,
        });
        const body = (await res.body.text()).slice(0, 4096);
        return { ok: true, status: res.statusCode, headers: res.headers, body };
      } catch (err) {
        const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
        const code = e.code ?? e.cause?.code;
        if (code === 'EPRIVATE' || e.message === TARGET_NOT_ALLOWED) return { ok: false, outcome: { ok: false, final: true, error: TARGET_NOT_ALLOWED } };
        return { ok: false, outcome: { ok: false, final: false, error: `${code ? `${code}: ` : ''}${e.message}` } };
      }
    },
  };
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The one rule for an HTTP answer; `reason` is the provider's error text when it gave one. */
export function outcomeOf(status: number, headers: Record<string, string | string[] | undefined>, reason: string): SendOutcome {
  if (status >= 200 && status < 300) return { ok: true };
  const error = `HTTP ${status}${reason ? `: ${reason}` : ''}`;
  if (status === 429) return { ok: false, final: false, error, retryAfterMs: retryAfterMs(headers['retry-after']) };
  if (status >= 400 && status < 500) return { ok: false, final: true, error };
  return { ok: false, final: false, error };
}

/** A short reason from a provider's error body (JSON message fields, or the text itself). */
export function reasonOf(body: string): string {
  try {
    const j = JSON.parse(body) as Record<string, unknown>;
    for (const k of ['description', 'message', 'error', 'error_description']) if (typeof j[k] === 'string') return j[k];
  } catch {
    /* not JSON */
  }
  return body.trim().slice(0, 200);
}

/** Posts JSON and applies the one rule: for channels whose provider has no special answer shape. */
export async function postJson(http: HttpSender, url: string, payload: unknown, opts: { guarded: boolean; headers?: Record<string, string> }): Promise<SendOutcome> {
  const body = JSON.stringify(payload);
  const a = await http.post(url, { headers: { 'content-type': 'application/json', ...opts.headers }, body, guarded: opts.guarded });
  if (!a.ok) return a.outcome;
  return outcomeOf(a.status, a.headers, a.status >= 300 ? reasonOf(a.body) : '');
}
