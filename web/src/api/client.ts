// The one authorised-request helper (SPEC section 7). Every call sends credentials and the bearer
// access token; a 401 triggers one refresh (shared by concurrent callers, since refresh tokens
// rotate) and one retry; a failed refresh clears the session, goes to /login and raises
// 'Authentication failed'.
import type { ApiFailure, ApiSuccess } from '@upfleet/proto/rest';

/** `total` is the X-Total-Count header when the answer has one (a page of the endpoint list). */
export type ApiResult<T> = (ApiSuccess<T> | ApiFailure) & { status: number; total?: number };

export class AuthenticationError extends Error {
  constructor() {
    super('Authentication failed');
    this.name = 'AuthenticationError';
  }
}

export interface TokenStore {
  getAccessToken(): string | null;
  getRefreshToken(): string | null;
  setTokens(accessToken: string, refreshToken?: string): void;
}

interface ApiClientDeps {
  tokens: TokenStore;
  /** Clears stored tokens and user and navigates to /login. */
  onAuthFailure: () => void;
  fetch?: typeof fetch;
  baseUrl?: string;
  /** The workspace the data routes act on (X-Workspace-Id); null: the personal one. */
  workspaceId?: () => string | null;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiClient {
  request<T>(method: Method, path: string, body?: unknown): Promise<ApiResult<T>>;
  get<T>(path: string): Promise<ApiResult<T>>;
  post<T>(path: string, body?: unknown): Promise<ApiResult<T>>;
  put<T>(path: string, body?: unknown): Promise<ApiResult<T>>;
  patch<T>(path: string, body?: unknown): Promise<ApiResult<T>>;
  del<T>(path: string): Promise<ApiResult<T>>;
  /** Calls without the refresh-once rule (login, signup, public pages, logout). */
  publicRequest<T>(method: Method, path: string, body?: unknown, withToken?: boolean): Promise<ApiResult<T>>;
  /** Opens a long GET (the event stream) with the access token in the Authorization header, never the URL;
   *  a 401 refreshes once like any call. The caller reads the body. */
  stream?(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response>;
  /** A binary answer (a screenshot) as a Blob, authorised like any call (a 401 refreshes once); null when it is not there. */
  blob?(path: string): Promise<Blob | null>;
}

async function readBody<T>(res: Response): Promise<ApiResult<T>> {
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  const totalHeader = res.headers?.get('X-Total-Count');
  const total = totalHeader ? { total: Number(totalHeader) } : {};
  if (parsed && typeof parsed === 'object' && 'success' in parsed) {
    return { ...(parsed as ApiSuccess<T> | ApiFailure), status: res.status, ...total };
  }
  if (res.ok) return { success: true, data: parsed as T, status: res.status };
  const error = parsed && typeof parsed === 'object' && 'error' in parsed ? String((parsed).error) : `Request failed (${res.status})`;
  return { success: false, error, status: res.status };
}

export function createApiClient(deps: ApiClientDeps): ApiClient {
  const doFetch = deps.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = deps.baseUrl ?? '';
  let refreshing: Promise<boolean> | null = null;

  const send = (method: Method, path: string, body: unknown, token: string | null, extra?: { headers: Record<string, string>; signal: AbortSignal }): Promise<Response> => {
    const headers: Record<string, string> = { Accept: 'application/json', ...extra?.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (token) headers.Authorization = `Bearer ${token}`;
    const workspace = deps.workspaceId?.();
    if (workspace) headers['X-Workspace-Id'] = workspace;
    return doFetch(`${base}${path}`, {
      method,
      headers,
      credentials: 'include',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: extra?.signal,
    });
  };

  const refreshOnce = (): Promise<boolean> => {
    if (!refreshing) {
      refreshing = (async () => {
        const refreshToken = deps.tokens.getRefreshToken();
        if (!refreshToken) return false;
        try {
          const res = await send('POST', '/api/auth/refresh', { refreshToken }, null);
          const out = await readBody<{ accessToken: string; refreshToken?: string }>(res);
          if (!out.success || !out.data?.accessToken) return false;
          deps.tokens.setTokens(out.data.accessToken, out.data.refreshToken);
          return true;
        } catch {
          return false;
        }
      })().finally(() => {
        refreshing = null;
      });
    }
    return refreshing;
  };

  const fail = (): never => {
    deps.onAuthFailure();
    throw new AuthenticationError();
  };

  const request = async <T>(method: Method, path: string, body?: unknown): Promise<ApiResult<T>> => {
    const res = await send(method, path, body, deps.tokens.getAccessToken());
    if (res.status !== 401) return readBody<T>(res);
    if (!(await refreshOnce())) return fail();
    const retry = await send(method, path, body, deps.tokens.getAccessToken());
    if (retry.status === 401) return fail();
    return readBody<T>(retry);
  };

  return {
    request,
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body ?? {}),
    put: (path, body) => request('PUT', path, body ?? {}),
    patch: (path, body) => request('PATCH', path, body ?? {}),
    del: (path) => request('DELETE', path),
    publicRequest: async (method, path, body, withToken = false) =>
      readBody(await send(method, path, body, withToken ? deps.tokens.getAccessToken() : null)),
    async blob(path) {
      const extra = { headers: { Accept: 'image/*' }, signal: new AbortController().signal };
      let res = await send('GET', path, undefined, deps.tokens.getAccessToken(), extra);
      if (res.status === 401) {
        if (!(await refreshOnce())) return fail();
        res = await send('GET', path, undefined, deps.tokens.getAccessToken(), extra);
        if (res.status === 401) return fail();
      }
      return res.ok ? res.blob() : null;
    },
    async stream(path, headers, signal) {
      const extra = { headers: { Accept: 'text/event-stream', ...headers }, signal };
      const res = await send('GET', path, undefined, deps.tokens.getAccessToken(), extra);
      if (res.status !== 401) return res;
      if (!(await refreshOnce())) return fail();
      return send('GET', path, undefined, deps.tokens.getAccessToken(), extra);
    },
  };
}
