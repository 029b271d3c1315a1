// The control plane serves the agent executable (GET /downloads/…, built on first request, ETag)
// and GET /install-agent.sh; the script's --dry-run downloads, verifies the sha256 and prints the
// unit and env file it would write; a tampered binary is refused.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBinary } from '../helpers/agent-binary';
import { startStack, type Stack } from '../helpers/start-stack';

describe('agent downloads and install-agent.sh', () => {
  let stack: Stack;
  let tmp: string;
  beforeAll(async () => {
    await agentBinary(); // the cached build the server serves, so the first request is not a cold build
    stack = await startStack();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-install-'));
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** `curl -fsSL …/install-agent.sh | sh -s -- ARGS` */
  const install = (args: string[]) =>
    spawnSync('sh', ['-c', `curl -fsSL ${stack.baseUrl}/install-agent.sh | sh -s -- "$@"`, 'sh', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, TMPDIR: tmp } });

  it('serves the executable with its sha256 as a strong ETag, and 304 for a copy the client has', async () => {
    const sum = await fetch(`${stack.baseUrl}/downloads/upfleet-agent-linux-x64.sha256`);
    expect(sum.status).toBe(200);
    const line = await sum.text();
    expect(line).toMatch(/^[0-9a-f]{64} {2}upfleet-agent-linux-x64\n$/);
    const sha = line.split(' ')[0];
    const bin = await fetch(`${stack.baseUrl}/downloads/upfleet-agent-linux-x64`);
    expect(bin.status).toBe(200);
    expect(bin.headers.get('etag')).toBe(`"${sha}"`);
    expect(bin.headers.get('content-type')).toBe('application/octet-stream');
    const body = Buffer.from(await bin.arrayBuffer());
    expect(createHash('sha256').update(body).digest('hex')).toBe(sha);
    expect(body.length).toBe((await agentBinary()).bytes);
    const again = await fetch(`${stack.baseUrl}/downloads/upfleet-agent-linux-x64`, { headers: { 'if-none-match': `"${sha}"` } });
    expect(again.status).toBe(304);
  });

  it('--dry-run downloads and verifies the binary, prints the env file and the hardened unit, and changes nothing', () => {
    const before = ['/usr/local/bin/upfleet-agent', '/etc/upfleet/agent.env', '/etc/systemd/system/upfleet-agent.service'].map((f) => fs.existsSync(f));
    const r = install(['--dry-run', '--control-plane', `cp.example.com:${stack.grpcPort}`, '--region', 'EU-Germany', '--token', 'tok_abc.123']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/Checksum verified: sha256 [0-9a-f]{64}/);
    expect(out).toContain('Would install the verified binary to /usr/local/bin/upfleet-agent');
    expect(out).toContain('Would write /etc/upfleet/agent.env (mode 600):');
    expect(out).toContain(`    UPFLEET_CONTROL_PLANE=cp.example.com:${stack.grpcPort}\n    UPFLEET_REGION=EU-Germany\n    UPFLEET_TOKEN=tok_abc.123\n`);
    for (const line of ['ExecStart=/usr/local/bin/upfleet-agent', 'User=upfleet-agent', 'EnvironmentFile=/etc/upfleet/agent.env', 'NoNewPrivileges=yes', 'ProtectSystem=strict', 'StateDirectory=upfleet-agent']) {
      expect(out).toContain(`    ${line}\n`);
    }
    // this machine has no running systemd: the script says how to run the binary by hand
    expect(out).toContain('systemd is not running here');
    expect(out).toContain("sudo -u upfleet-agent sh -c 'set -a; . /etc/upfleet/agent.env; set +a;");
    expect(['/usr/local/bin/upfleet-agent', '/etc/upfleet/agent.env', '/etc/systemd/system/upfleet-agent.service'].map((f) => fs.existsSync(f))).toEqual(before);
    expect(fs.readdirSync(tmp)).toEqual([]); // its download dir is cleaned up
  });

  it('refuses a tampered binary with a clear line', async () => {
    const tampered = path.join(tmp, '..', `tampered-${process.pid}`);
    fs.copyFileSync((await agentBinary()).binary, tampered);
    fs.appendFileSync(tampered, Buffer.from([0]));
    try {
      const r = install(['--dry-run', '--binary', tampered, '--control-plane', 'cp:50051', '--region', 'EU-Germany', '--token', 't']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^install-agent: checksum mismatch: refusing to install upfleet-agent-linux-x64 \(sha256 [0-9a-f]{64}, the control plane publishes [0-9a-f]{64}\)\n$/);
      expect(r.stdout).not.toContain('Would write');
    } finally {
      fs.rmSync(tampered, { force: true });
    }
  });

  it('says what is missing', () => {
    const r = install(['--dry-run', '--control-plane', 'cp:50051', '--region', 'EU-Germany']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("install-agent: --token is required (from 'upfleet agent token create')");
    // a value that would break out of the env file or a shell line is refused; an IPv6 address is not
    const bad = install(['--dry-run', '--control-plane', 'cp:50051', '--region', 'EU-Germany', '--token', 'a;reboot']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("install-agent: values may only hold letters, digits and . _ : / @ + = - [ ] (got 'a;reboot')");
    const v6 = install(['--dry-run', '--control-plane', '[::1]:50051', '--region', 'EU-Germany', '--token', 't']);
    expect(v6.status, v6.stderr).toBe(0);
    expect(v6.stdout).toContain('    UPFLEET_CONTROL_PLANE=[::1]:50051\n');
  });
});
