// The download routes when the agent executable cannot be built: a clear 503, and no new build
// per request (the routes are public) until BUILD_RETRY_MS has passed. Real express app on loopback.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { agentInstallRoutes, BUILD_RETRY_MS, buildingAgentSource, INSTALL_BAD_HOST, INSTALL_NEEDS_HTTPS, shellQuote } from './routes';
import { rawGet } from '../../testing/raw-http';

let clock = 1_000_000;
let builds = 0;
let fail = true;
let server: http.Server;
let base: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-downloads-'));
const binary = path.join(dir, 'upfleet-agent-linux-x64');

beforeAll(async () => {
  fs.writeFileSync(binary, 'not really an executable');
  const artifact = buildingAgentSource(pino({ level: 'silent' }), {
    now: () => clock,
    build: async () => {
      builds++;
      if (fail) throw new Error('esbuild: boom');
      return { binary, sha256: 'ab'.repeat(32), bytes: 24, built: true };
    },
  });
  const app = express();
  app.use(agentInstallRoutes({ artifact, publicUrl: 'https://upfleet.example.com', logger: pino({ level: 'silent' }) }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('agent downloads', () => {
  it('answers 503 while the executable cannot be built, and tries again only after a while', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${base}/downloads/upfleet-agent-linux-x64`);
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({ success: false, error: 'The agent executable is not available on this server (the build failed; see its log)' });
    }
    expect(builds).toBe(1);
    fail = false;
    clock += BUILD_RETRY_MS;
    const ok = await fetch(`${base}/downloads/upfleet-agent-linux-x64.sha256`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe(`${'ab'.repeat(32)}  upfleet-agent-linux-x64\n`);
    expect((await fetch(`${base}/downloads/upfleet-agent-linux-x64`)).status).toBe(200);
    expect(builds).toBe(2);
  });

  it('bakes PUBLIC_URL into the install script', async () => {
    const r = await fetch(`${base}/install-agent.sh`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/x-shellscript');
    const text = await r.text();
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    // PUBLIC_URL as a single-quoted word (data to the shell), the operator's override still first
    expect(text).toContain("DEFAULT_BASE_URL='https://upfleet.example.com'\nBASE_URL=\"${UPFLEET_BASE_URL:-$DEFAULT_BASE_URL}\"");
    expect(text).not.toContain('__BASE_URL__');
    // PUBLIC_URL wins over any Host a client sends
    const forged = await rawGet(base, '/install-agent.sh', 'evil.example');
    expect(forged.body).toContain("DEFAULT_BASE_URL='https://upfleet.example.com'");
    expect(forged.body).not.toContain('evil.example');
  });
});

describe('install script without PUBLIC_URL', () => {
  let plain: http.Server;
  let plainBase: string;
  const start = async (opts: { allowHttp?: boolean; trustProxy?: boolean }) => {
    const app = express();
    if (opts.trustProxy) app.set('trust proxy', 'loopback');
    app.use(agentInstallRoutes({ artifact: async () => ({ binary, sha256: 'ab'.repeat(32) }), publicUrl: null, allowHttp: opts.allowHttp, logger: pino({ level: 'silent' }) }));
    const s = app.listen(0, '127.0.0.1');
    await new Promise((r) => s.once('listening', r));
    return { s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
  };
  afterAll(async () => {
    if (plain) await new Promise((r) => plain.close(r));
  });

  it('builds the script only from a valid Host, never runs what a Host carries, says Vary: Host, and serves plain HTTP only on this machine unless allowed', async () => {
    ({ s: plain, url: plainBase } = await start({}));
    const port = new URL(plainBase).port;
    for (const bad of ["x.example$(touch /tmp/pwned)", "x.example';reboot;'", 'x.example`id`', 'a..b', 'x.example:99999']) {
      const r = await rawGet(plainBase, '/install-agent.sh', bad);
      expect(r.status, bad).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ success: false, error: INSTALL_BAD_HOST });
    }
    // plain HTTP to another machine's name: refused (a script piped to a shell must not be alterable on the way)
    const remote = await rawGet(plainBase, '/install-agent.sh', 'upfleet.internal:8080');
    expect(remote.status).toBe(403);
    expect(JSON.parse(remote.body)).toEqual({ success: false, error: INSTALL_NEEDS_HTTPS });
    // on this machine it is fine (npm start's defaults)
    const local = await rawGet(plainBase, '/install-agent.sh', `127.0.0.1:${port}`);
    expect(local.status).toBe(200);
    expect(local.body).toContain(`DEFAULT_BASE_URL='http://127.0.0.1:${port}'`);
    expect(local.headers.vary).toMatch(/\bHost\b/i);
    expect((await rawGet(plainBase, '/install-agent.sh', `localhost:${port}`)).status).toBe(200);
  });

  it('serves plain HTTP beyond this machine with ALLOW_HTTP_INSTALL, and says https behind a trusted TLS proxy', async () => {
    const allowed = await start({ allowHttp: true });
    try {
      const r = await rawGet(allowed.url, '/install-agent.sh', 'upfleet.internal:8080');
      expect(r.status).toBe(200);
      expect(r.body).toContain("DEFAULT_BASE_URL='http://upfleet.internal:8080'");
    } finally {
      await new Promise((r) => allowed.s.close(r));
    }
    const proxied = await start({ trustProxy: true });
    try {
      const r = await rawGet(proxied.url, '/install-agent.sh', 'upfleet.example.com', { 'x-forwarded-proto': 'https' });
      expect(r.status).toBe(200);
      expect(r.body).toContain("DEFAULT_BASE_URL='https://upfleet.example.com'");
    } finally {
      await new Promise((r) => proxied.s.close(r));
    }
  });

  it('quotes any value as one shell word that the shell reads back unchanged', () => {
    for (const v of ["https://a.example/x'y", 'https://a.example/$(id)`id`"', "''"]) {
      const out = spawnSync('sh', ['-c', `printf %s ${shellQuote(v)}`], { encoding: 'utf8' });
      expect(out.stdout).toBe(v);
    }
  });
});
