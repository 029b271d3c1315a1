// A small REST client for e2e tests: what the web app and the CLI do, over real HTTP.
import type { Stack } from './start-stack';

export interface Api {
  call<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: { success: boolean; data: T; error?: string } }>;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  signup(username: string, plan?: string): Promise<string>;
}

export function apiFor(getStack: () => Stack): Api {
  const api: Api = {
    async call(method, path, body, token) {
      const res = await fetch(`${getStack().baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    },
    async admin(method, path, body) {
      const r = await api.call(method, path, body, getStack().adminToken);
      if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data;
    },
    async signup(username, plan) {
      const r = await api.call('POST', '/api/auth/signup', { username, email: `${username}@example.com`, password: 'pipeline pw' });
      if (r.status !== 201) throw new Error(`signup: ${JSON.stringify(r.body)}`);
      if (plan) await api.admin('POST', '/api/admin/users/set-package', { email: `${username}@example.com`, package: plan });
      return (r.body.data).accessToken;
    },
  };
  return api;
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
