// The one HTTP client for the control plane's admin API. Commands call its methods and never
// see fetch, status codes or the { success, data } envelope; every failure is a CliError.
import { AgentTokenCreateBody, RegionCreateBody, SetPackageBody, check } from '@upfleet/proto/schemas';
import { CliError, oneLine } from '../errors';
import type {
  AddRegionInput,
  AdminRegion,
  AdminUser,
  AgentInfo,
  AgentTokenInfo,
  CreatedAgentToken,
  Package,
  Region,
  RevokedAgentToken,
  UserPackageChange,
} from './types';

export interface AdminClientOptions {
  server: string;
  /** Resolved lazily so commands that fail before a request do not demand a token. */
  token: () => string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface AdminClient {
  listUsers(): Promise<AdminUser[]>;
  setUserPackage(email: string, packageName: string): Promise<UserPackageChange>;
  listPackages(): Promise<Package[]>;
  listRegions(): Promise<AdminRegion[]>;
  addRegion(input: AddRegionInput): Promise<Region>;
  /** expiresInSeconds / maxUses: undefined leaves the server's default (24 h, single-use), null means never / any number. */
  createAgentToken(region: string, expiresInSeconds?: number | null, maxUses?: number | null): Promise<CreatedAgentToken>;
  listAgentTokens(): Promise<AgentTokenInfo[]>;
  revokeAgentToken(tokenId: string): Promise<RevokedAgentToken>;
  listAgents(): Promise<AgentInfo[]>;
}

type Method = 'GET' | 'POST' | 'DELETE';

export function createAdminClient(options: AdminClientOptions): AdminClient {
  const base = normalizeServerUrl(options.server);
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;

  async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const token = options.token();
    const url = `${base}${path}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new CliError('unreachable', `Cannot reach the control plane at ${base}: ${networkReason(err, timeoutMs)}`);
    }

    const text = await res.text().catch(() => '');
    const payload = parseEnvelope(text);
    if (res.ok && payload?.success === true) return payload.data as T;

    const serverText = payload && payload.success === false && typeof payload.error === 'string' ? oneLine(payload.error) : null;
    const route = `${method} ${path}`;
    if (res.status === 401) {
      throw new CliError(
        'unauthorized',
        `Admin token rejected by ${base}${serverText ? ` (${serverText})` : ''}: check --token, UPFLEET_ADMIN_TOKEN or the admin-token file`,
        401,
      );
    }
    if (res.status === 404) {
      // A 404 without the API's JSON means the route itself is missing (an older control plane).
      throw new CliError('not_found', serverText ?? `Not found: ${route} on ${base} (is the control plane up to date?)`, 404);
    }
    if (res.status >= 400 && res.status < 500 && serverText) throw new CliError('rejected', serverText, res.status);
    if (serverText) throw new CliError('server', `The control plane failed on ${route}: ${serverText} (HTTP ${res.status})`, res.status);
    throw new CliError('server', `Unexpected response from the control plane at ${base} for ${route}: HTTP ${res.status}`, res.status);
  }

  /** A body the control plane would refuse fails here first, with the server's own message, before any request. */
  function body<T>(schema: Parameters<typeof check>[0], value: T): T {
    const r = check(schema, value);
    if (!r.ok) throw new CliError('usage', r.error);
    return value;
  }

  return {
    listUsers: () => request('GET', '/api/admin/users'),
    setUserPackage: async (email, packageName) =>
      request('POST', '/api/admin/users/set-package', body(SetPackageBody, { email, package: packageName })),
    listPackages: () => request('GET', '/api/admin/packages'),
    listRegions: () => request('GET', '/api/admin/regions'),
    addRegion: async (input) => request('POST', '/api/admin/regions', body(RegionCreateBody, input)),
    createAgentToken: async (region, expiresInSeconds, maxUses) =>
      request('POST', '/api/admin/agent-tokens', body(AgentTokenCreateBody, {
        region,
        ...(expiresInSeconds === undefined ? {} : { expires_in_seconds: expiresInSeconds }),
        ...(maxUses === undefined ? {} : { max_uses: maxUses }),
      })),
    listAgentTokens: () => request('GET', '/api/admin/agent-tokens'),
    revokeAgentToken: (tokenId) => request('DELETE', `/api/admin/agent-tokens/${encodeURIComponent(tokenId)}`),
    listAgents: () => request('GET', '/api/admin/agents'),
  };
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
