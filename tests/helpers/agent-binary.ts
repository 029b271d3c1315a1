// The agent's single executable for tests: built once per source hash into dist/agent (the same
// cache `npm run build:agent` and the control plane's /downloads use), so test files share it.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAgentExecutable, type BuiltAgent } from '../../agent/sea/build';

let pending: Promise<BuiltAgent> | undefined;

export function agentBinary(): Promise<BuiltAgent> {
  pending ??= buildAgentExecutable();
  return pending;
}

/** A fresh empty dir holding only a copy of the executable (and an empty bin/ for PATH). */
export async function agentBinaryAlone(): Promise<{ dir: string; exe: string; env: Record<string, string> }> {
  const built = await agentBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-agent-exe-'));
  const exe = path.join(dir, 'upfleet-agent');
  fs.copyFileSync(built.binary, exe);
  fs.chmodSync(exe, 0o755);
  fs.mkdirSync(path.join(dir, 'bin'));
  // No node on PATH, no NODE_* variables, a home of its own (the cache dir goes under it).
  return { dir, exe, env: { PATH: path.join(dir, 'bin'), HOME: dir, LANG: 'C' } };
}

/** Stops an agent started from the executable (SIGTERM) and waits for it to exit. */
export async function stopAgentExe(agent: ChildProcess | undefined): Promise<void> {
  if (!agent || agent.exitCode !== null || agent.signalCode !== null) return;
  const exited = new Promise((r) => agent.once('exit', r));
  agent.kill('SIGTERM');
  await exited;
}
