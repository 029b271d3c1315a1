// `upfleet agent token create` (expiry, uses, the one-line join hint) and `upfleet agent install`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliDeps } from './index';
import { freePackage, startAdminApiServer, type AdminApiServer } from './testing/admin-api-server';

const ADMIN_TOKEN = 'adm_test_token_0123';
const FP = 'ab'.repeat(32);
let api: AdminApiServer;
let tmp: string;

beforeEach(async () => {
  api = await startAdminApiServer(ADMIN_TOKEN, {
    users: [], packages: [freePackage()], tokens: [], agents: [], caFingerprint: FP,
    regions: [{ region_id: 1, region: 'US', city: 'Virginia', primary_region: true, agents_live: 0 }],
  });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-cli-join-'));
});
afterEach(async () => {
  await api.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function cli(args: string[], extra: Partial<CliDeps> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env: {}, cwd: tmp, ...extra, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}
const admin = (...args: string[]) => cli([...args, '--server', api.url, '--token', ADMIN_TOKEN]);

describe('agent token create', () => {
  it('asks for --uses N and --expires never, and prints the one-line join (no CA file) when the token carries the CA fingerprint', async () => {
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--uses', '3', '--expires', 'never');
    expect(run.code).toBe(0);
    expect(api.requests[0].body).toEqual({ region: 'US-Virginia', expires_in_seconds: null, max_uses: 3 });
    const token = `upf_boot_secret_1.${FP}`;
    expect(run.stdout).toContain('does not expire, 3 agents');
    expect(run.stdout).toContain(`\n  upfleet agent run --control-plane 127.0.0.1:50051 --region US-Virginia --token ${token}\n`);
    expect(run.stdout).toContain(`\n  sudo upfleet agent install --control-plane 127.0.0.1:50051 --region US-Virginia --token ${token}\n`);
    expect(run.stdout).not.toContain('--ca-file');
    // without PUBLIC_URL the install line uses the address the CLI talked to
    expect(run.stdout).toContain(`\n  curl -fsSL ${api.url}/install-agent.sh | sudo sh -s -- --control-plane 127.0.0.1:50051 --region US-Virginia --token ${token}\n`);

    const unlimited = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--uses', 'unlimited');
    expect(unlimited.code).toBe(0);
    expect(api.requests[1].body).toEqual({ region: 'US-Virginia', max_uses: null });
    const bad = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--uses', '0');
    expect(bad).toEqual({ code: 1, stdout: '', stderr: "upfleet: Invalid --uses '0': a whole number of agents (1 or more), or 'unlimited'\n" });
  });
});

describe('agent token create with PUBLIC_URL', () => {
  it('prints the install line from PUBLIC_URL, with its host as the gRPC address', async () => {
    await api.close();
    api = await startAdminApiServer(ADMIN_TOKEN, {
      users: [], packages: [freePackage()], tokens: [], agents: [], caFingerprint: FP, publicUrl: 'https://upfleet.example.com',
      regions: [{ region_id: 1, region: 'US', city: 'Virginia', primary_region: true, agents_live: 0 }],
    });
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain(
      `  curl -fsSL https://upfleet.example.com/install-agent.sh | sudo sh -s -- --control-plane upfleet.example.com:50051 --region US-Virginia --token upf_boot_secret_1.${FP}`,
    );
  });
});

describe('agent install', () => {
  const args = ['agent', 'install', '--control-plane', 'cp.example.com:50051', '--region', 'US-Virginia', '--token', `upf_secret.${FP}`];

  it('--dry-run prints the unit and the env file (with the token) and writes nothing', async () => {
    const root = path.join(tmp, 'root');
    const run = await cli([...args, '--dry-run', '--root', root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`# ${path.join(root, 'etc/upfleet/agent.env')} (mode 600)\n`);
    expect(run.stdout).toContain(`UPFLEET_TOKEN=upf_secret.${FP}\n`);
    expect(run.stdout).toContain('UPFLEET_CONTROL_PLANE=cp.example.com:50051\nUPFLEET_REGION=US-Virginia\n');
    expect(run.stdout).toMatch(/ExecStart=\S+node\S* \S+cli\/bin\/upfleet\.js agent run\n/);
    expect(run.stdout).toContain('EnvironmentFile=/etc/upfleet/agent.env\n');
    expect(run.stdout).toContain('# then, as root: systemctl daemon-reload && systemctl enable --now upfleet-agent.service\n');
    expect(fs.existsSync(root)).toBe(false);
  });

  it('writes the unit (644) and the env file (600) under --root, keeps the token off the unit, and starts nothing there', async () => {
    const root = path.join(tmp, 'root');
    const run = await cli([...args, '--root', root, '--agent-data-dir', '/srv/agent']);
    expect(run.code, run.stderr).toBe(0);
    const env = path.join(root, 'etc/upfleet/agent.env');
    const unit = path.join(root, 'etc/systemd/system/upfleet-agent.service');
    expect(fs.statSync(env).mode & 0o777).toBe(0o600);
    expect(fs.statSync(unit).mode & 0o777).toBe(0o644);
    expect(fs.readFileSync(env, 'utf8')).toContain(`UPFLEET_TOKEN=upf_secret.${FP}\nUPFLEET_DATA_DIR=/srv/agent\n`);
    const unitText = fs.readFileSync(unit, 'utf8');
    expect(unitText).not.toContain('upf_secret');
    expect(unitText).toContain('RestartPreventExitStatus=3\n');
    expect(run.stdout).toBe(`wrote ${env} (mode 600)\nwrote ${unit} (mode 644)\nnot starting the service: files were written under --root ${root}\n`);
  });

  it('refuses without a token, saying where to get one', async () => {
    const run = await cli(['agent', 'install', '--control-plane', 'cp.example.com:50051', '--region', 'US-Virginia', '--dry-run']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: "upfleet: --token (from 'upfleet agent token create') is required for agent install\n" });
  });
});
