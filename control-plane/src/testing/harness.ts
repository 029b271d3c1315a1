// Starts the real control plane in-process on port 0 with a fresh DATA_DIR, and a small REST client.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { startControlPlane, type ControlPlane, type ControlPlaneExtras } from '../server';
import { createResultStore, type ClickHouseResultStore } from '../results/clickhouse-store';

export interface Harness {
  cp: ControlPlane;
  dataDir: string;
  call<T = any>(method: string, p: string, body?: unknown, token?: string, headers?: Record<string, string>): Promise<{ status: number; body: T & { success: boolean; error?: string; data?: any }; headers: Headers }>;
  /** Moves a user to a plan by name through the admin API (e.g. 'Pro' for api_access). */
  setPackage(email: string, packageName: string): Promise<void>;
  signup(name?: string): Promise<{ token: string; refreshToken: string; user: { id: number; email: string; username: string } }>;
  /** Stops the control plane and starts it again on the same data; `whileDown` runs in between. */
  restart(whileDown?: () => void): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;

export async function startHarness(env: Record<string, string> = {}, extras: ControlPlaneExtras = { results: null }): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-api-'));
  const fullEnv = {
    PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, EMBEDDED_AGENT: '0', LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_SIGNUPS: '100000', RATE_LIMIT_IP_LOGINS: '100000', RATE_LIMIT_IP_REFRESHES: '100000', RATE_LIMIT_ENDPOINT_MUTATIONS_PER_MINUTE: '100000',
    WEB_DIST_DIR: path.join(dataDir, 'no-web'),
    ...env,
  };
  const logger = createLogger('silent');
  const h: Harness = {
    cp: await startControlPlane(loadConfig(fullEnv), logger, extras),
    dataDir,
    async call(method, p, body, token, headers) {
      const res = await fetch(`${h.cp.url}${p}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: any;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { raw: text };
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async signup(name) {
      const n = name ?? `user${++counter}x${process.pid}`;
      const r = await h.call('POST', '/api/auth/signup', { username: n, email: `${n}@example.com`, password: 'correct horse' });
      if (r.status !== 201) throw new Error(`signup failed: ${JSON.stringify(r.body)}`);
      return { token: r.body.data.accessToken, refreshToken: r.body.data.refreshToken, user: r.body.data.user };
    },
    async setPackage(email, packageName) {
      const r = await h.call('POST', '/api/admin/users/set-package', { email, package: packageName }, h.cp.adminToken);
      if (r.status !== 200) throw new Error(`set-package failed: ${JSON.stringify(r.body)}`);
    },
    async restart(whileDown) {
      await h.cp.close();
      whileDown?.();
      h.cp = await startControlPlane(loadConfig(fullEnv), logger, extras);
    },
    async close() {
      await h.cp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** A harness with a chDB results store of its own (kept across h.restart()); close() ends both. */
export async function startHarnessWithResults(env: Record<string, string> = {}): Promise<Harness & { store: ClickHouseResultStore }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-results-'));
  const store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger: createLogger('silent') });
  await store.init();
  const h = await startHarness(env, { results: store });
  const closeHarness = h.close.bind(h);
  return Object.assign(h, {
    store,
    async close() {
      await closeHarness();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}
