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
import { agentInstallRoutes, BUILD_RETRY_MS, buildingAgentSource } from './routes';

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
    expect(text).toContain('BASE_URL="${UPFLEET_BASE_URL:-https://upfleet.example.com}"');
    expect(text).not.toContain('__BASE_URL__');
  });
});
