// From the CLI against the real control plane (in-process, real HTTP, real SQLite):
// `upfleet monitors --workspace` with a key bound to a shared workspace, `upfleet user list` with
// each person's workspaces, and `upfleet workspace list` (admin token).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/src/index';
import { startHarness, type Harness } from '../../control-plane/src/testing/harness';

let h: Harness;
let tmp: string;
beforeAll(async () => {
  h = await startHarness();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-ws-cli-'));
});
afterAll(async () => {
  await h?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function upfleet(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...args, '--server', h.cp.url], { env, cwd: tmp, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('workspaces in the CLI', () => {
  it('monitors export --workspace reads the shared workspace its key belongs to; another workspace is refused', async () => {
    const owner = await h.signup();
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Platform team' }, owner.token)).body.data.id as number;
    const account = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data.find((w: { id: number }) => w.id === ws).account_email;
    await h.setPackage(account, 'Pro');
    const inWs = { 'x-workspace-id': String(ws) };
    await h.call('POST', '/api/users/endpoints', { name: 'Team API', url: 'https://example.com/team', regions: ['EU-Germany'], response_code: true }, owner.token, inWs);
    await h.call('POST', '/api/users/endpoints', { name: 'Mine', url: 'https://example.com/mine', regions: ['EU-Germany'], response_code: true }, owner.token);
    const key = (await h.call('POST', '/api/users/api-keys', { name: 'cli' }, owner.token, inWs)).body.data.key as string;

    const out = await upfleet(['monitors', 'export', '--api-key', key, '--workspace', String(ws)]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Team API');
    expect(out.stdout).not.toContain('Mine');
    const env = await upfleet(['monitors', 'export', '--api-key', key], { UPFLEET_WORKSPACE: String(ws) });
    expect(env.stdout).toBe(out.stdout);
    const other = await upfleet(['monitors', 'export', '--api-key', key, '--workspace', String(owner.user.id)]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('Workspace not found');
    const bad = await upfleet(['monitors', 'export', '--api-key', key, '--workspace', 'team']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--workspace must be a workspace id');

    const users = await upfleet(['user', 'list', '--json'], { UPFLEET_ADMIN_TOKEN: h.cp.adminToken });
    const me = (JSON.parse(users.stdout) as Array<{ email: string; workspaces: string }>).find((u) => u.email === owner.user.email)!;
    expect(me.workspaces).toBe(`Personal #${owner.user.id} (owner), Platform team #${ws} (owner)`);
    const table = await upfleet(['user', 'list'], { UPFLEET_ADMIN_TOKEN: h.cp.adminToken });
    expect(table.stdout).toMatch(/WORKSPACES/);
    expect(table.stdout).not.toContain('@workspaces.invalid'); // a workspace's account row is not a user

    const list = await upfleet(['workspace', 'list'], { UPFLEET_ADMIN_TOKEN: h.cp.adminToken });
    expect(list.code).toBe(0);
    const row = list.stdout.split('\n').find((l) => l.includes('Platform team'))!;
    expect(row).toMatch(new RegExp(`^\\s*${ws}\\s+Platform team\\s+no\\s+Pro\\s+1\\s+1\\s+${owner.user.email.replace('.', '\\.')}`));
  });

  it('workspace set-package <id> <package> moves a workspace by its id; a bad id or package is one clear line', async () => {
    const owner = await h.signup();
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Night shift' }, owner.token)).body.data.id as number;
    const admin = { UPFLEET_ADMIN_TOKEN: h.cp.adminToken };
    const out = await upfleet(['workspace', 'set-package', String(ws), 'Starter'], admin);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`Workspace ${ws} (Night shift) is now on the Starter package.\n`);
    // the list names workspaces by id; the made-up address of a workspace's account row is not shown
    const list = await upfleet(['workspace', 'list'], admin);
    expect(list.stdout).toMatch(new RegExp(`^\\s*${ws}\\s+Night shift\\s+no\\s+Starter\\s`, 'm'));
    expect(list.stdout).not.toContain('@workspaces.invalid');
    expect(list.stdout).not.toContain('ACCOUNT');
    expect((await h.call('GET', `/api/workspaces/${ws}`, undefined, owner.token)).body.data.package_name).toBe('Starter');
    const invited = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'ann@example.com', role: 'viewer' }, owner.token);
    expect(invited.status).toBe(201);

    const badPackage = await upfleet(['workspace', 'set-package', String(ws), 'Gold'], admin);
    expect(badPackage.code).toBe(1);
    expect(badPackage.stderr).toContain("No package named Gold; see 'upfleet package list'");
    const badId = await upfleet(['workspace', 'set-package', 'night', 'Pro'], admin);
    expect(badId.code).not.toBe(0);
    expect(badId.stderr).toContain("The workspace id must be a number as in 'upfleet workspace list'");
    expect((await h.call('GET', `/api/workspaces/${ws}`, undefined, owner.token)).body.data.package_name).toBe('Starter');
  });
});
