// Browser checks from the agent executable: Playwright is not in the agent's script (it is ~5 MB
// an agent without browser checks would parse and hold) but an asset of its own, written out and
// loaded on the first browser check (agent/sea/main.ts). Run alone, with no node on PATH.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { browserSupport } from '../../agent/src/probers/index';
import { startTestControlPlane, waitFor, type TestControlPlane } from '../../agent/src/testing/test-control-plane';
import { agentBinaryAlone, stopAgentExe } from '../helpers/agent-binary';
import { startTargets, type Targets } from '../helpers/targets';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!browserSupport(CHROMIUM).ok)('browser checks from the agent executable', () => {
  let alone: Awaited<ReturnType<typeof agentBinaryAlone>>;
  let targets: Targets;
  let cp: TestControlPlane;
  let agent: ChildProcess | undefined;
  let out = '';

  beforeAll(async () => {
    alone = await agentBinaryAlone();
    targets = await startTargets();
  }, 240_000);
  afterAll(async () => {
    await stopAgentExe(agent);
    await cp?.close();
    await targets?.close();
    if (alone) fs.rmSync(alone.dir, { recursive: true, force: true });
  });

  it('runs a browser check with the Playwright it carries, written out beside its other assets only then', async () => {
    const check: Assignment = {
      check_id: '1:CHECK_KIND_BROWSER:EU-Germany', endpoint_id: 1, kind: 'CHECK_KIND_BROWSER', url: targets.http.ok,
      interval_seconds: 60, timeout_ms: 30_000, region: 'EU-Germany', retention_days: 30, steps: [],
    };
    cp = await startTestControlPlane({ assignments: [] });
    agent = spawn(alone.exe, [
      '--control-plane', cp.address, '--region', 'EU-Germany', '--token', 'bootstrap-token', '--insecure',
      '--data-dir', path.join(alone.dir, 'data'), '--allow-private-targets', 'true', '--chromium-path', CHROMIUM, '--log-level', 'warn',
    ], { cwd: alone.dir, env: alone.env, stdio: ['ignore', 'pipe', 'pipe'] });
    agent.stdout!.on('data', (d) => (out += d));
    agent.stderr!.on('data', (d) => (out += d));
    const cache = path.join(alone.dir, '.cache/upfleet-agent');
    await waitFor(() => cp.watchers() > 0, 30_000, 'the agent watching').catch((err: Error) => {
      throw new Error(`${err.message}\nagent output:\n${out}`);
    });
    const [build] = fs.readdirSync(cache);
    const playwright = path.join(cache, build, 'playwright-core/lib/playwright-core.cjs');
    expect(fs.existsSync(path.join(cache, build, 'better_sqlite3.node'))).toBe(true);
    expect(fs.existsSync(playwright)).toBe(false); // no browser check yet
    cp.setAssignments([check]);
    await waitFor(() => cp.stored.size > 0, 60_000, 'the browser check result').catch((err: Error) => {
      throw new Error(`${err.message}\nagent output:\n${out}`);
    });
    const r = [...cp.stored.values()][0];
    expect(r).toMatchObject({ check_id: check.check_id, ok: true, status_code: 200 });
    expect(fs.existsSync(playwright)).toBe(true);
    expect(fs.existsSync(path.join(cache, build, 'playwright-core/package.json'))).toBe(true);
  }, 120_000);
});
