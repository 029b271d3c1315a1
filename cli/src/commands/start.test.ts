import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirFor, planStart, REPO_ROOT, runStart, runStep, type SpawnFn, type SpawnStep } from './start';

const base = {
  repoRoot: '/srv/upfleet',
  nodePath: '/usr/bin/node',
  tsxCli: '/srv/upfleet/node_modules/tsx/dist/cli.mjs',
  env: { PATH: '/usr/bin', PORT: '9090' },
  build: true,
};

describe('planStart', () => {
  it('builds the web app with npm, then runs control-plane/src/main.ts through tsx, both from the repo root', () => {
    expect(planStart(base)).toEqual([
      { label: 'build the web app', command: 'npm', args: ['run', 'build', '-w', 'web'], cwd: '/srv/upfleet', env: base.env },
      {
        label: 'start the control plane',
        command: '/usr/bin/node',
        args: ['/srv/upfleet/node_modules/tsx/dist/cli.mjs', 'control-plane/src/main.ts'],
        cwd: '/srv/upfleet',
        env: base.env,
      },
    ]);
  });

  it('passes the environment through and maps --data-dir and --port onto DATA_DIR and PORT', () => {
    const steps = planStart({ ...base, dataDir: '/var/lib/upfleet', port: '8081' });
    for (const step of steps) expect(step.env).toEqual({ PATH: '/usr/bin', PORT: '8081', DATA_DIR: '/var/lib/upfleet' });
    expect(base.env).toEqual({ PATH: '/usr/bin', PORT: '9090' }); // the caller's env is not modified
  });

  it("resolves a relative data dir against the caller's directory, since the control plane runs from the repo root", () => {
    expect(dataDirFor('./mydata', '/home/ann/work')).toBe('/home/ann/work/mydata');
    expect(dataDirFor('/var/lib/upfleet', '/home/ann')).toBe('/var/lib/upfleet');
    expect(dataDirFor(undefined, '/home/ann')).toBeUndefined();
  });

  it('skips the web build with --no-build', () => {
    expect(planStart({ ...base, build: false }).map((s) => s.label)).toEqual(['start the control plane']);
  });

  it('points at the real repo root and the files npm start uses', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(pkg.scripts.start).toBe('npm run build -w web && tsx control-plane/src/main.ts');
    expect(fs.existsSync(path.join(REPO_ROOT, 'web', 'package.json'))).toBe(true);
  });
});

const nodeStep = (script: string): SpawnStep => ({
  label: 'start the control plane',
  command: process.execPath,
  args: ['-e', script],
  cwd: process.cwd(),
  env: { ...process.env },
});

function manualSignals() {
  const handlers = new Map<string, () => void>();
  return {
    onSignal: (signal: NodeJS.Signals, handler: () => void) => {
      handlers.set(signal, handler);
      return () => handlers.delete(signal);
    },
    send: (signal: string) => handlers.get(signal)?.(),
    count: () => handlers.size,
  };
}

describe('runStep', () => {
  it("resolves to the child's exit code", async () => {
    expect(await runStep(nodeStep('process.exit(3)'), {})).toBe(3);
  });

  it('forwards SIGTERM to the child and reports 128+15 when the child dies of it', async () => {
    const sig = manualSignals();
    const running = runStep(nodeStep('setInterval(() => {}, 1000)'), { onSignal: sig.onSignal });
    expect(sig.count()).toBe(3);
    await new Promise((r) => setTimeout(r, 200));
    sig.send('SIGTERM');
    expect(await running).toBe(143);
    expect(sig.count()).toBe(0);
  });

  it("lets the child handle the signal and exit with its own code", async () => {
    const sig = manualSignals();
    // The child says when its handler is in place: a fixed sleep raced the child's start on a busy machine.
    const ready = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-start-')), 'ready');
    const step = nodeStep('process.on("SIGINT", () => process.exit(0)); require("fs").writeFileSync(process.env.READY_FILE, "1"); setInterval(() => {}, 1000)');
    const running = runStep({ ...step, env: { ...step.env, READY_FILE: ready } }, { onSignal: sig.onSignal });
    while (!fs.existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
    sig.send('SIGINT');
    expect(await running).toBe(0);
  });

  it('turns a command that cannot be spawned into a one-line error', async () => {
    await expect(runStep({ ...nodeStep(''), command: '/nonexistent/npm' }, {})).rejects.toThrow(
      'Could not start the control plane (/nonexistent/npm): spawn /nonexistent/npm ENOENT',
    );
  });
});

describe('runStart', () => {
  it('stops after a failed web build and does not start the control plane', async () => {
    const spawned: string[] = [];
    const fakeSpawn: SpawnFn = (command, args, options) => {
      spawned.push(`${command} ${args.join(' ')}`);
      // Real processes: the "build" fails with 2.
      return spawn(process.execPath, ['-e', 'process.exit(2)'], { ...options, cwd: process.cwd() });
    };
    let stderr = '';
    const code = await runStart(base, { spawn: fakeSpawn, stderr: (t) => (stderr += t) });
    expect(code).toBe(2);
    expect(spawned).toEqual(['npm run build -w web']);
    expect(stderr).toBe('upfleet: could not build the web app (exit code 2)\n');
  });

  it("after a good build runs the control plane and returns its exit code", async () => {
    const spawned: string[] = [];
    const fakeSpawn: SpawnFn = (command, args, options) => {
      spawned.push(`${command} ${args.join(' ')}`);
      const code = spawned.length === 1 ? 0 : 7;
      return spawn(process.execPath, ['-e', `process.exit(${code})`], { ...options, cwd: process.cwd() });
    };
    let stderr = '';
    expect(await runStart(base, { spawn: fakeSpawn, stderr: (t) => (stderr += t) })).toBe(7);
    expect(spawned).toEqual(['npm run build -w web', '/usr/bin/node /srv/upfleet/node_modules/tsx/dist/cli.mjs control-plane/src/main.ts']);
    expect(stderr).toBe('');
  });
});
