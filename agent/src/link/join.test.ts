// Joining a control plane: the one-line join (the token pins the CA), the clear exit of an agent
// started with the wrong trust settings, file modes of the data dir, and no DEP0123 warning.
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { grpc } from '@upfleet/proto';
import { makeCa, makeCert, type Pem } from '../../../tests/helpers/targets';
import { startTestControlPlane, waitFor, type TestControlPlane } from '../testing/test-control-plane';
import { classifyLinkError } from './errors';

const here = path.dirname(fileURLToPath(import.meta.url));
const mainTs = path.resolve(here, '../main.ts');

let ca: Pem;
let cp: TestControlPlane;
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  ca = makeCa('Upfleet control plane CA');
  const leaf = makeCert({ ca, commonName: 'upfleet-control-plane', altNames: ['localhost', 'upfleet-control-plane', '127.0.0.1'] });
  // Like the control plane's generated server.pem: the leaf, then the CA it was issued by.
  cp = await startTestControlPlane({ tls: { cert: leaf.cert + ca.cert, key: leaf.key } });
});
afterAll(() => cp.close());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const caFingerprint = () => new X509Certificate(ca.cert).fingerprint256.replace(/:/g, '').toLowerCase();

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'upfleet-agent-join-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function runMain(args: string[]): { child: ChildProcess; stderr: () => string; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', mainTs, ...args], {
    cwd: path.resolve(here, '../../..'),
    env: { ...process.env, UPFLEET_LOG_LEVEL: 'warn', NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, stderr: () => stderr, exit };
}

describe('joining a control plane', () => {
  it('one-line join: with only --control-plane, --region and the printed token it fetches the CA, checks the fingerprint, keeps it (0600) and registers; dialling an IP prints no DEP0123', async () => {
    const dir = path.join(tempDir(), 'data');
    const before = cp.registrations.length;
    const run = runMain([
      '--control-plane', cp.address, '--region', 'EU-Germany', '--token', `bootstrap-token.${caFingerprint()}`,
      '--data-dir', dir, '--metrics-port', '0',
    ]);
    await waitFor(() => cp.heartbeats.length > 0 && cp.registrations.length > before, 20_000, 'registration and a heartbeat');
    // only the secret travels in Register
    expect(cp.registrations.at(-1)!.bootstrap_token).toBe('bootstrap-token');
    const saved = path.join(dir, 'ca.pem');
    expect(new X509Certificate(readFileSync(saved)).fingerprint256).toBe(new X509Certificate(ca.cert).fingerprint256);
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'agent.db')).mode & 0o777).toBe(0o600);
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.exit;
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/DEP0123|Setting the TLS ServerName to an IP address/);
  });

  it('refuses a CA that does not match the token: exit 3, one plain line, nothing saved', async () => {
    const dir = tempDir();
    const other = makeCa('Someone else');
    const fp = new X509Certificate(other.cert).fingerprint256.replace(/:/g, '').toLowerCase();
    const { code, stderr } = await runMain([
      '--control-plane', cp.address, '--region', 'EU-Germany', '--token', `bootstrap-token.${fp}`, '--data-dir', dir, '--metrics-port', '0',
    ]).exit;
    expect(code).toBe(3);
    expect(stderr).toMatch(/^upfleet agent: fatal: the control plane's certificate is not trusted: its CA does not match the fingerprint in the token/m);
    expect(existsSync(path.join(dir, 'ca.pem'))).toBe(false);
  });

  it('an agent that never registered and meets an untrusted certificate exits at once with code 3 and says what to do', async () => {
    const dir = tempDir();
    // without the rule it retries forever and this never resolves (the test times out)
    const { code, stderr } = await runMain([
      '--control-plane', cp.address, '--region', 'EU-Germany', '--token', 'bootstrap-token', '--data-dir', dir, '--metrics-port', '0',
    ]).exit;
    expect(code).toBe(3);
    const lines = stderr.split('\n').filter((l) => l.startsWith('upfleet agent: fatal:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/the control plane's certificate is not trusted: use a token from 'upfleet agent token create' or pass --ca-file/);
  });

  it('keeps backing off on TLS errors once registered (transient), but not before', () => {
    const tlsError = { code: grpc.status.UNAVAILABLE, details: 'No connection established. Last error: Error: self-signed certificate in certificate chain' };
    expect(classifyLinkError(tlsError, 'register').kind).toBe('fatal');
    expect(classifyLinkError(tlsError, 'session').kind).toBe('transient');
    expect(classifyLinkError({ code: grpc.status.UNAVAILABLE, details: 'connect ECONNREFUSED 127.0.0.1:1' }, 'register').kind).toBe('transient');
  });
});
