// The CLI's one HTTP core for the control plane's JSON API (admin and user clients): it unwraps the
// { success, data } envelope and turns every failure into a CliError with a one-line message.
import { check } from '@upfleet/proto/schemas';
import { CliError, oneLine } from '../errors';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface JsonApiOptions {
  server: string;
  /** The bearer credential, resolved lazily so commands that fail before a request do not demand one. */
  credential: () => string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** The 401 message: which credential was refused and where to fix it. */
  rejected: (base: string, serverText: string | null) => string;
  /** How many times a 429 is waited out (its Retry-After, at most 60 s) before it fails; 0 by default. */
  rateLimitRetries?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Sent with every request (the public API's X-Workspace-Id). */
  headers?: Record<string, string>;
}

export type JsonRequest = <T>(method: Method, path: string, body?: unknown) => Promise<T>;

export function createJsonApi(options: JsonApiOptions): JsonRequest {
  const base = normalizeServerUrl(options.server);
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;

  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  return async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const token = options.credential();
    const url = `${base}${path}`;
    let res: Response;
    for (let attempt = 0; ; attempt++) {
      try {
        res = await doFetch(url, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...options.headers,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new CliError('unreachable', `Cannot reach the control plane at ${base}: ${networkReason(err, timeoutMs)}`);
      }
      // A 429 changed nothing on the server, so the same request is safe to send again after the wait.
      if (res.status !== 429 || attempt >= (options.rateLimitRetries ?? 0)) break;
      const wait = Number(res.headers.get('retry-after'));
      await res.arrayBuffer().catch(() => undefined);
      await sleep(Math.min(60, Number.isFinite(wait) && wait > 0 ? wait : 1) * 1000);
    }

    const text = await res.text().catch(() => '');
    const payload = parseEnvelope(text);
    if (res.ok && payload?.success === true) return payload.data as T;

    const serverText = payload && payload.success === false && typeof payload.error === 'string' ? oneLine(payload.error) : null;
    const route = `${method} ${path}`;
    if (res.status === 401) throw new CliError('unauthorized', options.rejected(base, serverText), 401);
    if (res.status === 404) {
      // A 404 without the API's JSON means the route itself is missing (an older control plane).
      throw new CliError('not_found', serverText ?? `Not found: ${route} on ${base} (is the control plane up to date?)`, 404);
    }
    if (res.status >= 400 && res.status < 500 && serverText) throw new CliError('rejected', serverText, res.status);
    if (serverText) throw new CliError('server', `The control plane failed on ${route}: ${serverText} (HTTP ${res.status})`, res.status);
    throw new CliError('server', `Unexpected response from the control plane at ${base} for ${route}: HTTP ${res.status}`, res.status);
  };
}

/** A body the control plane would refuse fails here first, with the server's own message, before any request. */
export function checkedBody<T>(schema: Parameters<typeof check>[0], value: T): T {
  const r = check(schema, value);
  if (!r.ok) throw new CliError('usage', r.error);
  return value;
}

/** 'http://host:8080/' → 'http://host:8080'; anything but an http(s) URL is a usage error. */
export function normalizeServerUrl(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliError('usage', `--server must be an http(s) URL like http://localhost:8080 (got '${server}')`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError('usage', `--server must be an http(s) URL like http://localhost:8080 (got '${server}')`);
  }
  return url.toString().replace(/\/+$/, '');
}

function parseEnvelope(text: string): { success: boolean; data?: unknown; error?: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && 'success' in value) return value as { success: boolean };
  } catch {
    // not JSON: handled by the caller from the status code
  }
  return null;
}

function networkReason(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `no answer within ${Math.round(timeoutMs / 1000)}s`;
  }
  // fetch wraps the socket error: TypeError('fetch failed', { cause: Error('connect ECONNREFUSED ...') })
  const cause = err instanceof Error ? (err.cause as { message?: string; code?: string } | undefined) : undefined;
  const message = cause?.message || cause?.code || (err instanceof Error ? err.message : String(err));
  return oneLine(message);
}
