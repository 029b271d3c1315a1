import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentConfigError, defaultBrowserConcurrency, loadAgentConfig, parseAgentArgv, redactConfig } from './config';
import { browserSupport } from './probers/browser/support';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(path.join(tmpdir(), 'upfleet-agent-cfg-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const base = { UPFLEET_CONTROL_PLANE: 'cp.example:50051', UPFLEET_REGION: 'EU-Germany', UPFLEET_TOKEN: 't0k' };

describe('loadAgentConfig', () => {
  it('fills defaults from a minimal environment', () => {
    const c = loadAgentConfig(base, {}, '/srv');
    expect(c).toMatchObject({
      controlPlane: 'cp.example:50051', region: 'EU-Germany', token: 't0k', dataDir: '/srv/agent-data',
      tls: { mode: 'system' }, metricsPort: 9464, metricsHost: '127.0.0.1', concurrency: 256, outboxCap: 1_000_000,
      batchSize: 2000, flushIntervalMs: 1000, maxBatchesInFlight: 4, allowPrivateTargets: true, probeThreads: 'auto',
    });
  });

  it('lists every problem in one message', () => {
    let err: unknown;
    try {
      loadAgentConfig({ UPFLEET_CONTROL_PLANE: 'no-port', UPFLEET_REGION: 'Germany', UPFLEET_CONCURRENCY: 'lots', UPFLEET_INSECURE: 'maybe' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AgentConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain("control plane address must be HOST:PORT (got 'no-port')");
    expect(msg).toContain("region must look like REGION-City, e.g. EU-Germany (got 'Germany')");
    expect(msg).toContain("UPFLEET_CONCURRENCY must be a whole number from 1 to 100000 (got 'lots')");
    expect(msg).toContain("UPFLEET_INSECURE must be true or false (got 'maybe')");
    expect((err as AgentConfigError).problems).toHaveLength(4);
  });

  it('requires the control plane and region, naming the flag and the variable', () => {
    expect(() => loadAgentConfig({})).toThrow(/--control-plane HOST:PORT or UPFLEET_CONTROL_PLANE[\s\S]*--region REGION-City/);
  });

  it('takes flags over env over the config file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent.json');
    writeFileSync(file, JSON.stringify({ region: 'US-Virginia', concurrency: 64, batchSize: 100, dataDir: '/var/lib/upfleet' }));
    const c = loadAgentConfig({ ...base, UPFLEET_AGENT_CONFIG: file, UPFLEET_CONCURRENCY: '128' }, { concurrency: 32 });
    expect(c).toMatchObject({ region: 'EU-Germany', concurrency: 32, batchSize: 100, dataDir: '/var/lib/upfleet' });
  });

  it('rejects unknown keys in the config file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent.json');
    writeFileSync(file, JSON.stringify({ controlplane: 'x:1' }));
    expect(() => loadAgentConfig(base, { configFile: file })).toThrow(/unknown key 'controlplane'/);
  });

  it('accepts one TLS mode and normalises a pinned fingerprint', () => {
    const fp = 'ab:'.repeat(31) + 'ab';
    expect(loadAgentConfig({ ...base, UPFLEET_SERVER_FINGERPRINT: fp }).tls).toEqual({ mode: 'pin', fingerprint256: 'AB'.repeat(32) });
    expect(loadAgentConfig({ ...base, UPFLEET_INSECURE: '1' }).tls).toEqual({ mode: 'insecure' });
    expect(() => loadAgentConfig({ ...base, UPFLEET_INSECURE: '1', UPFLEET_CA_FILE: '/ca.pem' })).toThrow(/choose one of/);
    expect(() => loadAgentConfig({ ...base, UPFLEET_SERVER_FINGERPRINT: 'abc' })).toThrow(/SHA-256 hex digest/);
  });

  it('reads ALLOW_PRIVATE_TARGETS=0 as the multi-tenant deployments set it', () => {
    expect(loadAgentConfig({ ...base, ALLOW_PRIVATE_TARGETS: '0' }).allowPrivateTargets).toBe(false);
  });

  it('never shows the token when redacted for logging', () => {
    expect(JSON.stringify(redactConfig(loadAgentConfig(base)))).not.toContain('t0k');
  });
});

describe('parseAgentArgv', () => {
  it('maps the documented flags to overrides', () => {
    const { overrides } = parseAgentArgv([
      '--control-plane', '127.0.0.1:50051', '--region', 'EU-Germany', '--token', 'T', '--data-dir', '/d', '--insecure',
      '--metrics-port', '0',
    ]);
    const c = loadAgentConfig({}, overrides);
    expect(c).toMatchObject({ controlPlane: '127.0.0.1:50051', token: 'T', dataDir: '/d', tls: { mode: 'insecure' }, metricsPort: 0 });
  });
  it('rejects an unknown flag', () => {
    expect(() => parseAgentArgv(['--control-plan', 'x'])).toThrow(/Unknown option/);
  });
});

describe('browser checks options', () => {
  it('finds Chromium at /usr/bin/chromium unless UPFLEET_CHROMIUM_PATH says otherwise, and caps browsers by memory and cores', () => {
    const c = loadAgentConfig(base, {}, '/srv');
    expect(c.chromiumPath).toBe('/usr/bin/chromium');
    expect(c.browserConcurrency).toBe(defaultBrowserConcurrency());
    expect(defaultBrowserConcurrency(8 * 1024 ** 3, 16)).toBe(11);
    expect(defaultBrowserConcurrency(512 * 1024 ** 2, 16)).toBe(1);
    expect(defaultBrowserConcurrency(24 * 1024 ** 3, 2)).toBe(2); // and by cores
    const set = loadAgentConfig({ ...base, UPFLEET_CHROMIUM_PATH: '/opt/chrome/chrome', UPFLEET_BROWSER_CONCURRENCY: '3' }, {}, '/srv');
    expect(set).toMatchObject({ chromiumPath: '/opt/chrome/chrome', browserConcurrency: 3 });
    expect(() => loadAgentConfig({ ...base, UPFLEET_BROWSER_CONCURRENCY: '0' }, {}, '/srv')).toThrow(/UPFLEET_BROWSER_CONCURRENCY must be a whole number from 1 to 1000/);
  });

  it('says why an agent cannot run browser checks when there is no Chromium', () => {
    expect(browserSupport('/nonexistent/chromium')).toEqual({ ok: false, reason: expect.stringMatching(/^no Chromium at \/nonexistent\/chromium/) });
    expect(browserSupport('/etc')).toEqual({ ok: false, reason: '/etc is not a file' });
  });
});
