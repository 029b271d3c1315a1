// Runs a real agent (agent/src/main.ts) as its own process against a stack started by start-stack.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, type Stack } from './start-stack';

export interface AgentProcess {
  dataDir: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function createAgentToken(stack: Stack, region = 'EU-Germany'): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/api/admin/agent-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
    body: JSON.stringify({ region }),
  });
  const body = (await res.json()) as { data: { token: string } };
  return body.data.token;
}

export function startAgentProcess(stack: Stack, opts: { token: string; region?: string; dataDir?: string; grpcPort?: number }): AgentProcess {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-agent-'));
  const child = spawn(process.execPath, [
    '--import', 'tsx', path.join(REPO_ROOT, 'agent/src/main.ts'),
    '--control-plane', `localhost:${opts.grpcPort ?? stack.grpcPort}`,
    '--region', opts.region ?? 'EU-Germany',
    '--token', opts.token,
    '--data-dir', dataDir,
    '--ca-file', path.join(stack.dataDir, 'grpc-tls/ca.pem'),
    '--metrics-port', '0',
    '--flush-interval-ms', '200',
    '--log-level', 'warn',
  ], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'test' } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    dataDir,
    process: child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
