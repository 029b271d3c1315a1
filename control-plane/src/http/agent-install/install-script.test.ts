// install-agent.sh as an operator runs it (curl | sh, --dry-run) against a real express app: a
// cluster's comma-separated control-plane list reaches the agent's env file as one value, and a
// list that could break out of it is refused with one line.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentInstallRoutes, buildingAgentSource } from './routes';

let server: http.Server;
let base: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-install-script-'));
const binary = path.join(dir, 'upfleet-agent-linux-x64');

beforeAll(async () => {
  fs.writeFileSync(binary, '#!/bin/sh\necho a stand-in for the agent executable\n');
  const sha256 = createHash('sha256').update(fs.readFileSync(binary)).digest('hex');
  const artifact = buildingAgentSource(pino({ level: 'silent' }), { build: async () => ({ binary, sha256, bytes: fs.statSync(binary).size, built: true }) });
  const app = express();
  app.use(agentInstallRoutes({ artifact, publicUrl: null, logger: pino({ level: 'silent' }) }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `curl | sh -s -- ARGS`, asynchronously: the server answering curl runs in this process. */
function install(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('sh', ['-c', `curl -fsSL ${base}/install-agent.sh | sh -s -- "$@"`, 'sh', ...args], { env: { PATH: process.env.PATH, TMPDIR: dir } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('install-agent.sh with several control planes', () => {
  it('writes the comma-separated list as UPFLEET_CONTROL_PLANE', async () => {
    const r = await install(['--dry-run', '--control-plane', 'cp-1.example.com:50051,cp-2.example.com:50051,[::1]:50051', '--region', 'EU-Germany', '--token', 'tok_abc.123']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('    UPFLEET_CONTROL_PLANE=cp-1.example.com:50051,cp-2.example.com:50051,[::1]:50051\n    UPFLEET_REGION=EU-Germany\n');
  });

  it('refuses a list with anything but addresses and commas, or an empty member, with one line', async () => {
    for (const bad of ['cp-1:50051,cp-2:50051;reboot', 'cp-1:50051,,cp-2:50051', 'cp-1:50051,', 'cp 1:50051']) {
      const r = await install(['--dry-run', '--control-plane', bad, '--region', 'EU-Germany', '--token', 't']);
      expect(r.status, bad).toBe(1);
      // Only the script's own line: curl may add one of its own when sh stops reading early.
      expect(r.stderr.split('\n').filter((l) => l.startsWith('install-agent:'))).toEqual([`install-agent: --control-plane takes HOST:PORT, or several separated by commas (got '${bad}')`]);
      expect(r.stdout).not.toContain('Would write');
    }
  });
});
