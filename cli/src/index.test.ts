import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliDeps } from './index';
import * as agent from '@upfleet/agent';
import type { AgentConfig } from '@upfleet/agent';
import { STOP_TIMEOUT_MS, type AgentModule } from './commands/agent/run';
import { freePackage, startAdminApiServer, type AdminApiServer, type AdminApiState } from './testing/admin-api-server';

const ADMIN_TOKEN = 'adm_test_token_0123';
const NOW = Date.parse('2025-06-01T12:00:00Z');

function seedState(): AdminApiState {
  return {
    users: [
      { id: 1, username: 'alice', email: 'alice@example.com', package_name: 'Free', endpoints: 3, two_factor_enabled: true, created_at: '2025-01-02T03:04:05.000Z' },
      { id: 12, username: 'bob', email: 'bob@example.com', package_name: 'Pro', endpoints: 120, two_factor_enabled: false, created_at: '2025-02-03T04:05:06.000Z' },
    ],
    packages: [
      freePackage(),
      freePackage({ package_id: 3, package_name: 'Pro', price: 29, max_endpoints: 200, max_regions: 3, check_frequency_seconds: 60, retention_days: 365, ping_host: true, response_time: true, cert_expiry: true, stripe_price_id: 'price_123' }),
    ],
    regions: [
      { region_id: 1, region: 'EU', city: 'Germany', primary_region: true, agents_live: 2 },
      { region_id: 2, region: 'US', city: 'Virginia', primary_region: false, agents_live: 0 },
    ],
    tokens: [],
    agents: [
      { agent_id: 'ag_1', region: 'EU-Germany', hostname: 'probe-fra-1', status: 'live', last_heartbeat_at: '2025-06-01T11:59:57Z', checks_owned: 412, checks_per_minute: 82.4, outbox_depth: 0, version: '0.1.0' },
      { agent_id: 'ag_2', region: 'EU-Germany', hostname: 'probe-fra-2', status: 'lapsed', last_heartbeat_at: '2025-06-01T11:55:00Z', checks_owned: 0, checks_per_minute: 0, outbox_depth: 1532, version: '0.1.0' },
    ],
  };
}

let api: AdminApiServer;
let tmp: string;

beforeEach(async () => {
  api = await startAdminApiServer(ADMIN_TOKEN, seedState());
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-cli-'));
});
afterEach(async () => {
  await api.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Run { code: number; stdout: string; stderr: string }

async function cli(args: string[], extra: Partial<CliDeps> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: {},
    cwd: tmp,
    now: () => NOW,
    ...extra,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

/** Runs against the test server with the right token. */
const admin = (...args: string[]) => cli([...args, '--server', api.url, '--token', ADMIN_TOKEN]);

describe('user commands', () => {
  it('user list prints an aligned table of users', async () => {
    const run = await admin('user', 'list');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'ID  USERNAME  EMAIL              PACKAGE  ENDPOINTS  2FA  CREATED',
        ' 1  alice     alice@example.com  Free             3  yes  2025-01-02 03:04',
        '12  bob       bob@example.com    Pro            120  no   2025-02-03 04:05',
        '',
      ].join('\n'),
    });
    expect(api.requests[0]).toMatchObject({ method: 'GET', path: '/api/admin/users', authorization: `Bearer ${ADMIN_TOKEN}` });
  });

  it('user list --json prints the data array exactly as the API sent it', async () => {
    const run = await admin('user', 'list', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(seedState().users);
  });

  it('accepts global options before the command as well', async () => {
    const run = await cli(['--server', api.url, '--token', ADMIN_TOKEN, '--json', 'user', 'list']);
    expect(JSON.parse(run.stdout)).toHaveLength(2);
  });

  it('strips terminal control sequences from data in tables, plain output and error lines', async () => {
    api.state.users[0].username = 'alice\x1b]0;owned\x07\x1b[2J';
    api.state.users[0].email = 'alice@example.com';
    const list = await admin('user', 'list');
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(list.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(list.stdout).toContain(' 1  alice     alice@example.com');
    const evilPackage = await admin('user', 'set-package', '--email', 'bob@example.com', '--package', 'Gold\x1b[31m\x1b]8;;http://x\x07');
    expect(evilPackage.stderr).toBe("upfleet: Unknown package 'Gold'\n");
    api.state.packages[1].package_name = 'Pro\x1b[5m';
    const changed = await admin('user', 'set-package', '--email', 'bob@example.com', '--package', 'Pro\x1b[5m');
    expect(changed.stdout).toBe('bob@example.com is now on the Pro package.\n');
    // --json is for scripts: the data is kept, with JSON's own escapes.
    expect((await admin('user', 'list', '--json')).stdout).toContain('alice\\u001b]0;owned');
  });

  it("user set-package posts { email, package } and confirms the user's new package", async () => {
    const run = await admin('user', 'set-package', '--email', 'alice@example.com', '--package', 'Pro');
    expect(run).toEqual({ code: 0, stderr: '', stdout: 'alice@example.com is now on the Pro package.\n' });
    expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/api/admin/users/set-package', body: { email: 'alice@example.com', package: 'Pro' } });
    expect(api.state.users[0].package_name).toBe('Pro');
  });

  it("user set-package exits 1 with the server's message for an unknown user (404) or package (400)", async () => {
    expect(await admin('user', 'set-package', '--email', 'nobody@example.com', '--package', 'Pro')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'upfleet: User not found\n',
    });
    expect(await admin('user', 'set-package', '--email', 'bob@example.com', '--package', 'Gold')).toEqual({
      code: 1,
      stdout: '',
      stderr: "upfleet: Unknown package 'Gold'\n",
    });
  });

  it('a missing required flag is a one-line usage error with exit code 1 and no request', async () => {
    const run = await admin('user', 'set-package', '--email', 'alice@example.com');
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe("upfleet: required option '--package <name>' not specified");
    expect(api.requests).toHaveLength(0);
  });
});

describe('package and region commands', () => {
  it('package list shows limits, interval, retention and enabled features', async () => {
    const run = await admin('package', 'list');
    expect(run.stdout).toBe(
      [
        'ID  NAME      PRICE  ENDPOINTS  REGIONS  INTERVAL  RETENTION  FEATURES                                           STRIPE PRICE',
        ' 1  Free   0.00 EUR         10        1        5m        30d  response_code                                      -',
        ' 3  Pro   29.00 EUR        200        3        1m       365d  ping_host,cert_expiry,response_code,response_time  price_123',
        '',
      ].join('\n'),
    );
  });

  it('package set-price posts { package, stripe_price_id } and package list then shows the price', async () => {
    const run = await admin('package', 'set-price', '--package', 'Pro', '--stripe-price', 'price_456');
    expect(run).toEqual({ code: 0, stderr: '', stdout: 'Pro now uses Stripe price price_456.\n' });
    expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/api/admin/packages/set-price', body: { package: 'Pro', stripe_price_id: 'price_456' } });
    expect((await admin('package', 'list')).stdout).toContain('price_456');
  });

  it("package set-price exits 1 with the server's message for an unknown package or a bad id, and needs both options", async () => {
    expect(await admin('package', 'set-price', '--package', 'Gold', '--stripe-price', 'price_1')).toEqual({
      code: 1, stdout: '', stderr: "upfleet: No package named Gold; see 'upfleet package list'\n",
    });
    expect(await admin('package', 'set-price', '--package', 'Pro', '--stripe-price', 'prod_1')).toEqual({
      code: 1, stdout: '', stderr: 'upfleet: stripe_price_id must look like price_123\n',
    });
    const run = await admin('package', 'set-price', '--package', 'Pro');
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe("upfleet: required option '--stripe-price <id>' not specified");
    expect(api.state.packages[1].stripe_price_id).toBe('price_123');
  });

  it('package sync-stripe prints what it did per plan; a second run creates nothing', async () => {
    api.state.packages.push(freePackage({ package_id: 4, package_name: 'Business', price: 99 }));
    const run = await admin('package', 'sync-stripe');
    expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/api/admin/packages/sync-stripe' });
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'PACKAGE   ACTION   STRIPE PRICE            LOOKUP KEY        NOTE',
        'Free      skipped  -                       -                 free plan',
        'Pro       kept     price_123               -                 already has a price',
        'Business  created  price_upfleet_business  upfleet_business  prod_upfleet_business, 9900 eur/month',
        '',
      ].join('\n'),
    });
    const again = await admin('package', 'sync-stripe', '--json');
    expect(JSON.parse(again.stdout).map((r: { action: string }) => r.action)).toEqual(['skipped', 'kept', 'kept']);
  });

  it('region list shows the REGION-City name agents use and live agent counts', async () => {
    const run = await admin('region', 'list');
    expect(run.stdout).toBe(
      [
        'ID  NAME         REGION  CITY      PRIMARY  AGENTS LIVE',
        ' 1  EU-Germany   EU      Germany   yes                2',
        ' 2  US-Virginia  US      Virginia  no                 0',
        '',
      ].join('\n'),
    );
  });

  it('region add posts { region, city, primary } and says how to add agents for it', async () => {
    const run = await admin('region', 'add', '--region', 'AP', '--city', 'Tokyo', '--primary');
    expect(run.code).toBe(0);
    expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/api/admin/regions', body: { region: 'AP', city: 'Tokyo', primary: true } });
    expect(run.stdout).toBe('Added region AP-Tokyo (id 3, primary).\nNext: upfleet agent token create --region AP-Tokyo\n');

    const dup = await admin('region', 'add', '--region', 'AP', '--city', 'Tokyo');
    expect(api.requests[1].body).toEqual({ region: 'AP', city: 'Tokyo', primary: false });
    expect(dup).toEqual({ code: 1, stdout: '', stderr: 'upfleet: Region already exists\n' });
  });

  it('region add --json prints the created region object', async () => {
    const run = await admin('region', 'add', '--region', 'AP', '--city', 'Tokyo', '--json');
    expect(JSON.parse(run.stdout)).toEqual({ region_id: 3, region: 'AP', city: 'Tokyo', primary_region: false });
  });

  it("region add refuses a region or city the server would refuse, with the server's message and no request", async () => {
    const run = await admin('region', 'add', '--region', 'U', '--city', 'Tokyo');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('upfleet: region must be 2 to 10 letters, e.g. US\n');
    const city = await admin('region', 'add', '--region', 'AP', '--city', '7');
    expect(city.stderr).toBe('upfleet: city must be a name of 2 to 40 letters, e.g. Virginia\n');
    expect(api.requests).toHaveLength(0);
  });
});

describe('agent token commands', () => {
  it('token create sends the --expires duration in seconds and prints the token once with the run command', async () => {
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--expires', '24h');
    expect(run.code).toBe(0);
    expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/api/admin/agent-tokens', body: { region: 'US-Virginia', expires_in_seconds: 86_400 } });
    const secret = api.state.tokens[0].token;
    expect(run.stdout.split(secret)).toHaveLength(3); // the token line and the hint line
    expect(run.stdout).toContain(`\n  ${secret}\n`);
    expect(run.stdout).toContain(
      `  upfleet agent run --control-plane 127.0.0.1:50051 --region US-Virginia --token ${secret} --data-dir ./agent-data --ca-file ca.pem\n` +
        "(ca.pem: the control plane's DATA_DIR/grpc-tls/ca.pem; leave --ca-file out if its gRPC certificate is publicly trusted)\n",
    );
    expect(run.stdout).toContain('shown only this once');
  });

  it("token create names the control plane's generated CA and actual gRPC port when its data dir is on this host", async () => {
    const dataDir = path.join(tmp, 'cp-data');
    fs.mkdirSync(path.join(dataDir, 'grpc-tls'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'grpc-tls', 'ca.pem'), '-----BEGIN CERTIFICATE-----\n');
    fs.writeFileSync(path.join(dataDir, 'runtime.json'), JSON.stringify({ pid: 1, httpPort: 8080, grpcPort: 50999 }));
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--data-dir', dataDir);
    const hint = run.stdout.trimEnd().split('\n').at(-1)!;
    expect(hint).toBe(
      `  upfleet agent run --control-plane 127.0.0.1:50999 --region US-Virginia --token ${api.state.tokens[0].token} ` +
        `--data-dir ./agent-data --ca-file ${path.join(dataDir, 'grpc-tls', 'ca.pem')}`,
    );
  });

  it('token create --control-plane puts every address of a cluster in the run command and the install line', async () => {
    api.state.caFingerprint = 'ab'.repeat(32);
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--control-plane', 'cp-1.example.com:50051, cp-2.example.com:50051');
    expect(run.code, run.stderr).toBe(0);
    const secret = api.state.tokens[0].token;
    expect(run.stdout).toContain(`  upfleet agent run --control-plane cp-1.example.com:50051,cp-2.example.com:50051 --region US-Virginia --token ${secret}\n`);
    expect(run.stdout).toContain(`| sudo sh -s -- --control-plane cp-1.example.com:50051,cp-2.example.com:50051 --region US-Virginia --token ${secret}\n`);
    expect(api.requests[0].body).toEqual({ region: 'US-Virginia' }); // the addresses are the hint's, not the server's
  });

  it('token create refuses a --control-plane member that is not HOST:PORT before any request', async () => {
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--control-plane', 'cp-1:50051,https://cp-2');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("upfleet: Invalid --control-plane 'https://cp-2': HOST:PORT, or several separated by commas (a:50051,b:50051)\n");
    expect(api.requests).toHaveLength(0);
  });

  it('token create without --expires leaves the lifetime to the server; --json prints the created token', async () => {
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--json');
    expect(api.requests[0].body).toEqual({ region: 'US-Virginia' });
    expect(JSON.parse(run.stdout)).toEqual({ token_id: 'tok_1', token: 'upf_boot_secret_1', region: 'US-Virginia', expires_at: api.state.tokens[0].expires_at });
  });

  it('token create with a bad --expires fails before any request', async () => {
    const run = await admin('agent', 'token', 'create', '--region', 'US-Virginia', '--expires', '24');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("upfleet: Invalid duration '24': use a number and a unit (s, m, h, d, w), e.g. 30m, 24h, 7d\n");
    expect(api.requests).toHaveLength(0);
  });

  it('token revoke takes the id as argument or --id, and token list shows it revoked without the secret', async () => {
    await admin('agent', 'token', 'create', '--region', 'US-Virginia');
    await admin('agent', 'token', 'create', '--region', 'EU-Germany', '--expires', '7d');
    const byArg = await admin('agent', 'token', 'revoke', 'tok_1');
    expect(byArg.code).toBe(0);
    expect(byArg.stdout).toMatch(/^Revoked token tok_1 at \d{4}-\d\d-\d\d \d\d:\d\d UTC, with the agents it registered\.\n$/);
    expect(api.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/admin/agent-tokens/tok_1' });

    const byFlag = await admin('agent', 'token', 'revoke', '--id', 'tok_2', '--json');
    expect(JSON.parse(byFlag.stdout)).toEqual({ token_id: 'tok_2', revoked_at: api.state.tokens[1].revoked_at });

    const list = await admin('agent', 'token', 'list');
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('TOKEN ID  REGION       STATUS   CREATED           EXPIRES  USED');
    expect(lines[1]).toMatch(/^tok_1 {5}US-Virginia {2}revoked {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}(in \d+[smhd]|\d+[smhd] ago)\s+0$/);
    expect(list.stdout).not.toContain('upf_boot_secret');
  });

  it('token revoke of an unknown id exits 1 with the 404 message; without any id it is a usage error', async () => {
    expect(await admin('agent', 'token', 'revoke', 'tok_404')).toEqual({ code: 1, stdout: '', stderr: 'upfleet: Agent token not found\n' });
    const noId = await admin('agent', 'token', 'revoke');
    expect(noId).toEqual({ code: 1, stdout: '', stderr: 'upfleet: Which token? Pass its id: upfleet agent token revoke <token_id>\n' });
  });
});

describe('agent list', () => {
  it('shows region, status, relative last heartbeat, checks owned, checks/min and outbox depth', async () => {
    const run = await admin('agent', 'list');
    expect(run.stdout).toBe(
      [
        'AGENT  HOST         REGION      STATUS  LAST HEARTBEAT  CHECKS OWNED  CHECKS/MIN  OUTBOX  VERSION',
        'ag_1   probe-fra-1  EU-Germany  live    3s ago                   412        82.4       0  0.1.0',
        'ag_2   probe-fra-2  EU-Germany  lapsed  5m ago                     0           0    1532  0.1.0',
        '',
      ].join('\n'),
    );
  });

  it('marks an agent older than the control plane in the VERSION column', async () => {
    api.state.agents = [{ ...api.state.agents[0], version: '0.0.9', outdated: true }];
    const run = await admin('agent', 'list');
    expect(run.stdout.split('\n')[1]).toMatch(/ 0\.0\.9 \(older\)$/);
  });

  it('shows which agents run browser checks, and why the others cannot', async () => {
    api.state.agents = [
      { ...api.state.agents[0], browser_checks: true },
      { ...api.state.agents[1], browser_checks: false, browser_unavailable: 'no Chromium at /usr/bin/chromium' },
    ];
    const lines = (await admin('agent', 'list')).stdout.split('\n');
    expect(lines[0]).toMatch(/ VERSION +BROWSER$/);
    expect(lines[1]).toMatch(/ yes$/);
    expect(lines[2]).toMatch(/ no \(no Chromium at \/usr\/bin\/chromium\)$/);
  });

  it('says so when no agent has registered', async () => {
    api.state.agents = [];
    expect((await admin('agent', 'list')).stdout).toBe('No agents have registered yet.\n');
    expect(JSON.parse((await admin('agent', 'list', '--json')).stdout)).toEqual([]);
  });
});

describe('cluster status', () => {
  const proc = (id: string, host: string, pid: number, leader: boolean, lastSeen: string) => ({
    id, host, pid, version: '1.4.0', started_at: '2025-06-01T09:00:00.000Z', last_seen: lastSeen, leader, this_process: id.startsWith('aaaa'),
  });

  it('prints one row per process and which one holds the lease since when', async () => {
    api.state.cluster = {
      database: 'postgres',
      lease: { holder: 'bbbbbbbb-2222', epoch: 7, since: '2025-06-01T11:40:00.000Z', expires_at: '2025-06-01T12:00:08.000Z' },
      processes: [proc('aaaaaaaa-1111', 'cp-1', 101, false, '2025-06-01T11:59:58Z'), proc('bbbbbbbb-2222', 'cp-2', 202, true, '2025-06-01T11:59:57Z')],
    };
    const run = await admin('cluster', 'status');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'PROCESS              HOST  PID  VERSION  STARTED           LAST SEEN  LEADER',
        'aaaaaaaa (answered)  cp-1  101  1.4.0    2025-06-01 09:00  2s ago     no',
        'bbbbbbbb             cp-2  202  1.4.0    2025-06-01 09:00  3s ago     yes',
        '',
        'Leader: bbbbbbbb on cp-2 (pid 202), epoch 7, since 2025-06-01 11:40 UTC (20m ago)',
        'Lease and processes: Postgres (DATABASE_URL)',
        '',
      ].join('\n'),
    );
    expect(api.requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/admin/cluster', authorization: `Bearer ${ADMIN_TOKEN}` });
  });

  it('says when no process holds the lease; --json prints the data as the API sent it', async () => {
    api.state.cluster = { database: 'sqlite', lease: null, processes: [proc('aaaaaaaa-1111', 'cp-1', 101, false, '2025-06-01T11:59:40Z')] };
    const run = await admin('cluster', 'status');
    expect(run.stdout).toContain('Leader: none (the lease lapsed; a process takes it over at its next renewal)\n');
    expect(run.stdout).toContain('Lease and processes: SQLite (one process per DATA_DIR)');
    expect(JSON.parse((await admin('cluster', 'status', '--json')).stdout)).toEqual(api.state.cluster);
  });

  it('a wrong admin token is one line and exit code 1', async () => {
    const run = await cli(['cluster', 'status', '--server', api.url, '--token', 'wrong']);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stderr).toMatch(/^upfleet: Admin token rejected/);
  });
});

describe('admin token and server resolution', () => {
  it('reads the token from the admin-token file in --data-dir', async () => {
    const dir = path.join(tmp, 'cp-data');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    const run = await cli(['region', 'list', '--server', api.url, '--data-dir', dir]);
    expect(run.code).toBe(0);
    expect(api.requests[0].authorization).toBe(`Bearer ${ADMIN_TOKEN}`);
  });

  it('falls back to DATA_DIR, then ./data relative to the working directory', async () => {
    const dir = path.join(tmp, 'env-data');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'admin-token'), ADMIN_TOKEN);
    expect((await cli(['region', 'list', '--server', api.url], { env: { DATA_DIR: dir } })).code).toBe(0);

    fs.mkdirSync(path.join(tmp, 'data'));
    fs.writeFileSync(path.join(tmp, 'data', 'admin-token'), ADMIN_TOKEN);
    expect((await cli(['region', 'list', '--server', api.url])).code).toBe(0);
    expect(api.requests.map((r) => r.authorization)).toEqual([`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`]);
  });

  it('prefers --token over UPFLEET_ADMIN_TOKEN over the file, and takes the server from UPFLEET_SERVER', async () => {
    fs.mkdirSync(path.join(tmp, 'data'));
    fs.writeFileSync(path.join(tmp, 'data', 'admin-token'), 'from-file');
    await cli(['region', 'list'], { env: { UPFLEET_SERVER: api.url, UPFLEET_ADMIN_TOKEN: 'from-env' } });
    await cli(['region', 'list', '--token', 'from-flag'], { env: { UPFLEET_SERVER: api.url, UPFLEET_ADMIN_TOKEN: 'from-env' } });
    await cli(['region', 'list'], { env: { UPFLEET_SERVER: api.url } });
    expect(api.requests.map((r) => r.authorization)).toEqual(['Bearer from-env', 'Bearer from-flag', 'Bearer from-file']);
  });

  it('without any token source it exits 1 naming the file it looked for, and sends nothing', async () => {
    const run = await cli(['user', 'list', '--server', api.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `upfleet: No admin token: pass --token, set UPFLEET_ADMIN_TOKEN, or point --data-dir at the control plane's data directory (${path.join(tmp, 'data', 'admin-token')} does not exist)\n`,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('refuses a --server that is not an http(s) URL', async () => {
    const run = await cli(['user', 'list', '--server', 'localhost:8080', '--token', 't']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: "upfleet: --server must be an http(s) URL like http://localhost:8080 (got 'localhost:8080')\n" });
  });
});

describe('failures talking to the control plane', () => {
  it('a rejected admin token (401) exits 1 with one line saying where the token comes from', async () => {
    const run = await cli(['user', 'list', '--server', api.url, '--token', 'wrong']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `upfleet: Admin token rejected by ${api.url} (Invalid admin token): check --token, UPFLEET_ADMIN_TOKEN or the admin-token file\n`,
    });
  });

  it('a control plane without the admin routes (HTML 404) is reported as such', async () => {
    const run = await cli(['agent', 'list', '--server', `${api.url}/old`, '--token', ADMIN_TOKEN]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `upfleet: Not found: GET /api/admin/agents on ${api.url}/old (is the control plane up to date?)\n`,
    });
  });

  it('an unreachable server exits 1 with "Cannot reach the control plane at URL"', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const run = await cli(['region', 'list', '--server', `http://127.0.0.1:${port}`, '--token', 't']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `upfleet: Cannot reach the control plane at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    });
  });

  it('a 500 that is not the API shape names the status, without dumping the body', async () => {
    const broken = http.createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>\n<h1>Bad Gateway</h1>\n</html>');
    });
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    try {
      const run = await cli(['package', 'list', '--server', url, '--token', 't']);
      expect(run).toEqual({ code: 1, stdout: '', stderr: `upfleet: Unexpected response from the control plane at ${url} for GET /api/admin/packages: HTTP 502\n` });
    } finally {
      broken.close();
    }
  });
});

describe('agent run', () => {
  type Signal = 'SIGTERM' | 'SIGINT';

  /** The real loadAgentConfig, and a startAgent that records what it was given. */
  function recordingAgent(behaviour: { fatal?: string } = {}) {
    const calls: { config?: AgentConfig; stopped: number } = { stopped: 0 };
    const module: AgentModule = {
      loadAgentConfig: agent.loadAgentConfig,
      async startAgent(config, _logger, opts) {
        calls.config = config;
        if (behaviour.fatal) setTimeout(() => opts?.onFatal?.(behaviour.fatal!), 10);
        return { stop: async () => void calls.stopped++ };
      },
    };
    return { module, calls };
  }

  function signals() {
    const handlers = new Map<Signal, () => void>();
    return {
      onSignal: (signal: NodeJS.Signals, handler: () => void) => {
        handlers.set(signal as Signal, handler);
        return () => handlers.delete(signal as Signal);
      },
      send: (signal: Signal) => handlers.get(signal)?.(),
      count: () => handlers.size,
    };
  }

  it('turns the flags into the agent config, starts the agent and stops it on SIGTERM with exit 0', async () => {
    const { module, calls } = recordingAgent();
    const sig = signals();
    const caFile = path.join(tmp, 'ca.pem');
    const running = cli(
      ['agent', 'run', '--control-plane', 'cp.example.com:50051', '--region', 'US-Virginia', '--token', 'boot', '--data-dir', 'agent-data',
        '--ca-file', caFile, '--metrics-port', '9465', '--allow-private-targets', 'false', '--concurrency', '64', '--hostname', 'probe-1'],
      { env: { UPFLEET_BATCH_SIZE: '250' }, loadAgent: async () => module, onSignal: sig.onSignal },
    );
    await waitFor(() => calls.config !== undefined && sig.count() === 2);
    expect(calls.config).toMatchObject({
      controlPlane: 'cp.example.com:50051',
      region: 'US-Virginia',
      token: 'boot',
      dataDir: path.resolve('agent-data'),
      tls: { mode: 'ca', caFile },
      metricsPort: 9465,
      allowPrivateTargets: false,
      concurrency: 64,
      hostname: 'probe-1',
      batchSize: 250, // from the env the CLI was given
    });
    expect(calls.stopped).toBe(0);

    sig.send('SIGTERM');
    expect(await running).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(calls.stopped).toBe(1);
    expect(sig.count()).toBe(0);
  });

  it('takes what the flags leave out from UPFLEET_* env (an empty --token counts as not given); SIGINT stops it too', async () => {
    const { module, calls } = recordingAgent();
    const sig = signals();
    const running = cli(['agent', 'run', '--insecure', '--token', ''], {
      env: { UPFLEET_CONTROL_PLANE: '127.0.0.1:50051', UPFLEET_REGION: 'EU-Germany', UPFLEET_TOKEN: 'from-env' },
      loadAgent: async () => module,
      onSignal: sig.onSignal,
    });
    await waitFor(() => calls.config !== undefined);
    expect(calls.config).toMatchObject({ controlPlane: '127.0.0.1:50051', region: 'EU-Germany', token: 'from-env', tls: { mode: 'insecure' } });
    sig.send('SIGINT');
    expect((await running).code).toBe(0);
  });

  it("bad settings exit 1 with the agent's problems on one line, and the agent never starts", async () => {
    const { module, calls } = recordingAgent();
    const run = await cli(['agent', 'run', '--control-plane', 'http://cp:50051', '--region', 'Virginia', '--ca-file', 'ca.pem', '--insecure'], {
      loadAgent: async () => module,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      "upfleet: invalid agent configuration: control plane address must be HOST:PORT (got 'http://cp:50051'); " +
        "region must look like REGION-City, e.g. EU-Germany (got 'Virginia'); choose one of --ca-file, --server-fingerprint and --insecure\n",
    );
    expect(calls.config).toBeUndefined();
  });

  it('a fatal link error (revoked token) prints one line, stops the agent and exits 3', async () => {
    const { module, calls } = recordingAgent({ fatal: 'bootstrap token revoked' });
    const run = await cli(['agent', 'run', '--control-plane', '127.0.0.1:50051', '--region', 'EU-Germany', '--insecure'], {
      loadAgent: async () => module,
      onSignal: signals().onSignal,
    });
    expect(run).toEqual({ code: 3, stdout: '', stderr: 'upfleet: fatal: bootstrap token revoked\n' });
    expect(calls.stopped).toBe(1);
  });

  it('runs the real agent: it keeps its outbox in --data-dir while the control plane is away and stops cleanly on SIGTERM', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const dataDir = path.join(tmp, 'agent');
    const sig = signals();
    const running = cli(
      ['agent', 'run', '--control-plane', `127.0.0.1:${port}`, '--region', 'EU-Germany', '--token', 'boot', '--data-dir', dataDir,
        '--insecure', '--metrics-port', '0', '--log-level', 'silent'],
      { loadAgent: async () => agent, onSignal: sig.onSignal },
    );
    await waitFor(() => sig.count() === 2 && fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0, 10_000);
    const started = Date.now();
    sig.send('SIGTERM');
    expect(await running).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(Date.now() - started).toBeLessThan(STOP_TIMEOUT_MS);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
