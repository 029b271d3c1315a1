// `upfleet monitors export | apply` against the real control plane (in-process, real HTTP on port 0,
// real SQLite), authenticated with a real API key: the round trip is a no-op, --dry-run changes
// nothing, --prune deletes only what the file lacks, and a bad file changes nothing.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MESSAGES } from '@upfleet/proto/rest';
import { runCli } from '../../cli/src/index';
import { startHarness, type Harness } from '../../control-plane/src/testing/harness';
import { REPO_ROOT } from '../helpers/start-stack';

let h: Harness;
let tmp: string;
beforeAll(async () => {
  h = await startHarness();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-monitors-'));
});
afterAll(async () => {
  await h?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Account { token: string; key: string; email: string }

async function proAccount(plan = 'Pro'): Promise<Account> {
  const s = await h.signup();
  await h.setPackage(s.user.email, plan);
  const k = await h.call('POST', '/api/users/api-keys', { name: 'monitors as code' }, s.token);
  return { token: s.token, key: k.body.data.key, email: s.user.email };
}

async function upfleet(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...args, '--server', h.cp.url], { env, cwd: tmp, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** Everything apply may touch, ids included: endpoints and their saved thresholds. */
async function snapshot(a: Account) {
  const list = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, a.token)).body.data as Array<{ url_id: number }>;
  const out = [];
  for (const e of list) out.push({ ...e, thresholds: (await h.call('GET', `/api/users/endpoints/${e.url_id}/alert-thresholds`, undefined, a.token)).body.data });
  return out;
}

const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(tmp, name), text);
  return name;
};

async function seed(a: Account) {
  const mk = async (body: Record<string, unknown>) => (await h.call('POST', '/api/users/endpoints', body, a.token)).body.data.url_id as number;
  const home = await mk({ name: 'Home', url: 'https://example.com/', description: 'front page', regions: ['EU-Germany', 'US-Virginia'], response_code: true, response_time: true });
  await h.call('PUT', `/api/users/endpoints/${home}/alert-thresholds`, {
    alert_thresholds: [
      { monitor_type_id: 4, threshold_value: 1500, threshold_operator: '>', is_enabled: true, region_id: 2 },
      { monitor_type_id: 3, threshold_value: 400, threshold_operator: '>=', is_enabled: false, region_id: null },
    ],
  }, a.token);
  const api = await mk({ name: 'API', url: 'https://api.example.com/health', regions: ['EU-Germany'], ping_host: true, cert_expiry: true });
  await h.call('PATCH', `/api/users/endpoints/${api}/toggle`, { monitoring_enabled: false }, a.token);
  await mk({ name: 'Status', url: 'https://status.example.com/', regions: [] });
}

describe('upfleet monitors', () => {
  let a: Account;
  beforeEach(async () => {
    a = await proAccount();
    await seed(a);
  });

  it('exports the endpoints as YAML, and applying the export changes nothing (twice)', async () => {
    const before = await snapshot(a);
    const exported = await upfleet(['monitors', 'export', '-o', 'monitors.yaml', '--api-key', a.key]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(fs.readFileSync(path.join(tmp, 'monitors.yaml'), 'utf8'));
    expect(doc.monitors).toEqual([
      {
        name: 'Home', url: 'https://example.com/', description: 'front page', regions: ['EU-Germany', 'US-Virginia'],
        features: ['response_code', 'response_time'], monitoring: true,
        alert_thresholds: [
          { type: 'response_code', operator: '>=', value: 400, enabled: false },
          { type: 'response_time', operator: '>', value: 1500, enabled: true, region: 'US-Virginia' },
        ],
      },
      { name: 'API', url: 'https://api.example.com/health', regions: ['EU-Germany'], features: ['ping_host', 'cert_expiry', 'response_code'], monitoring: false },
      { name: 'Status', url: 'https://status.example.com/', regions: ['EU-Germany'], features: ['response_code'], monitoring: true },
    ]);
    for (let i = 0; i < 2; i++) {
      const applied = await upfleet(['monitors', 'apply', '-f', 'monitors.yaml', '--prune', '--json', '--api-key', a.key]);
      expect(applied.code, applied.stderr).toBe(0);
      const out = JSON.parse(applied.stdout);
      expect(out.summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 3 });
      expect(await snapshot(a)).toEqual(before);
    }
  });

  it('creates and updates by name, then a second apply of the same file changes nothing', async () => {
    const file = write('edit.yaml', `
monitors:
  - name: Home
    url: https://example.com
    description: front page
    regions: [EU-Germany]
    features: [response_code, response_time]
    alert_thresholds:
      - { type: response_time, operator: '>', value: 900 }
  - name: API
    url: https://api.example.com/health
    features: [ping_host, cert_expiry, response_code]
    monitoring: true
  - name: Status
    url: https://status.example.com/
  - name: Docs
    url: https://docs.example.com/
    regions: [EU-Germany, AP-Singapore]
    monitoring: false
`);
    const first = await upfleet(['monitors', 'apply', '-f', file, '--api-key', a.key]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/update\s+Home\s+regions, alert_thresholds/);
    expect(first.stdout).toMatch(/update\s+API\s+monitoring/);
    expect(first.stdout).toMatch(/unchanged\s+Status/);
    expect(first.stdout).toMatch(/create\s+Docs\s+url, regions, features, monitoring/);
    expect(first.stdout).toContain('Created 1, updated 2, deleted 0; 1 unchanged.');
    const after = await snapshot(a);
    const byName = Object.fromEntries(after.map((e: any) => [e.name, e]));
    expect(byName.Home).toMatchObject({ regions: ['EU-Germany'], response_time: true });
    expect(byName.Home.thresholds.filter((t: any) => t.threshold_id > 0)).toMatchObject([{ monitor_type: 'response_time', threshold_value: 900, threshold_operator: '>', is_enabled: true, region_id: null }]);
    expect(byName.API.monitoring_enabled).toBe(true);
    expect(byName.Docs).toMatchObject({ url: 'https://docs.example.com/', regions: ['EU-Germany', 'AP-Singapore'], monitoring_enabled: false, response_code: true });

    const second = await upfleet(['monitors', 'apply', '-f', file, '--json', '--api-key', a.key]);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 4 });
    expect(await snapshot(a)).toEqual(after);
  });

  it('carries the check kinds: tcp, dns, an http request with a secret header and assertions; export then apply is a no-op', async () => {
    const file = write('kinds.yaml', `
monitors:
  - name: Postgres
    kind: tcp
    target: db.example.com:5432
  - name: Mail
    kind: dns
    target: example.com
    record_type: MX
    resolver: 1.1.1.1
    assertions:
      - { source: answer, comparison: contains, target: mail.example.com }
  - name: Search
    url: https://search.example.com/api
    request:
      method: POST
      headers:
        - { name: Authorization, value: Bearer t0ps3cret, secret: true }
        - { name: Content-Type, value: application/json }
      body: '{"q":"x"}'
      follow_redirects: false
      timeout_seconds: 10
    assertions:
      - { source: status_code, comparison: equals, target: 200 }
      - { source: json_body, property: $.status, comparison: equals, target: ok }
`);
    const first = await upfleet(['monitors', 'apply', '-f', file, '--api-key', a.key]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/create\s+Postgres\s+url, regions, features, check/);
    const byName = Object.fromEntries((await snapshot(a)).map((e: any) => [e.name, e]));
    expect(byName.Postgres).toMatchObject({ kind: 'tcp', target: 'db.example.com:5432', url: 'tcp://db.example.com:5432' });
    expect(byName.Mail).toMatchObject({ kind: 'dns', record_type: 'MX', resolver: '1.1.1.1:53', assertions: [{ source: 'answer', comparison: 'contains', target: 'mail.example.com' }] });
    expect(byName.Search.request).toEqual({
      method: 'POST', headers: [{ name: 'Authorization', secret: true }, { name: 'Content-Type', value: 'application/json' }], body: '{"q":"x"}', follow_redirects: false, timeout_seconds: 10,
    });
    // the same file again, and its export: nothing changes (a secret value is sent, never compared)
    const again = await upfleet(['monitors', 'apply', '-f', file, '--json', '--api-key', a.key]);
    expect(JSON.parse(again.stdout).summary).toMatchObject({ create: 0, update: 0 });
    const exported = await upfleet(['monitors', 'export', '-o', 'kinds-export.yaml', '--api-key', a.key]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = fs.readFileSync(path.join(tmp, 'kinds-export.yaml'), 'utf8');
    expect(text).not.toContain('t0ps3cret');
    const doc = parse(text);
    expect(doc.monitors.find((m: any) => m.name === 'Postgres')).toMatchObject({ kind: 'tcp', target: 'db.example.com:5432' });
    expect(doc.monitors.find((m: any) => m.name === 'Postgres').url).toBeUndefined();
    const before = await snapshot(a);
    const round = await upfleet(['monitors', 'apply', '-f', 'kinds-export.yaml', '--json', '--api-key', a.key]);
    expect(round.code, round.stderr).toBe(0);
    expect(JSON.parse(round.stdout).summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect(await snapshot(a)).toEqual(before);

    // an edited assertion is an update of the check
    fs.writeFileSync(path.join(tmp, 'kinds-export.yaml'), text.replace('target: ok', 'target: healthy'));
    const edit = await upfleet(['monitors', 'apply', '-f', 'kinds-export.yaml', '--api-key', a.key]);
    expect(edit.stdout).toMatch(/update\s+Search\s+check/);
    const search = (await snapshot(a)).find((e: any) => e.name === 'Search') as any;
    expect(search.assertions[1]).toMatchObject({ target: 'healthy' });
    expect(search.request.headers[0]).toEqual({ name: 'Authorization', secret: true });
  });

  it('--dry-run prints the plan with the fields that change and changes nothing', async () => {
    const before = await snapshot(a);
    const file = write('dry.yaml', `
monitors:
  - { name: Home, url: 'https://example.com/', description: new words, regions: [EU-Germany, US-Virginia], features: [response_code, response_time] }
  - { name: Fresh, url: 'https://fresh.example.com/' }
`);
    const r = await upfleet(['monitors', 'apply', '-f', file, '--dry-run', '--prune', '--api-key', a.key]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ACTION\s+NAME\s+CHANGES/);
    expect(r.stdout).toMatch(/update\s+Home\s+description, alert_thresholds/);
    expect(r.stdout).toMatch(/create\s+Fresh\s+url, regions, features/);
    expect(r.stdout).toMatch(/delete\s+API/);
    expect(r.stdout).toMatch(/delete\s+Status/);
    expect(r.stdout).toContain('Would create 1, update 1, delete 2; 0 unchanged. Dry run: nothing was changed.');
    const json = JSON.parse((await upfleet(['monitors', 'apply', '-f', file, '--dry-run', '--json', '--api-key', a.key])).stdout);
    expect(json).toMatchObject({ dry_run: true, summary: { create: 1, update: 1, delete: 0, unchanged: 0 }, kept_not_in_file: 2 });
    expect(await snapshot(a)).toEqual(before);
  });

  it('--prune deletes only the endpoints the file lacks', async () => {
    const before = await snapshot(a);
    const file = write('prune.yaml', (await upfleet(['monitors', 'export', '--api-key', a.key])).stdout.replace(/\n {2}- name: API\n( {4}.*\n)+/, '\n'));
    expect(parse(fs.readFileSync(path.join(tmp, file), 'utf8')).monitors.map((m: any) => m.name)).toEqual(['Home', 'Status']);
    const without = await upfleet(['monitors', 'apply', '-f', file, '--api-key', a.key]);
    expect(without.stdout).toContain('1 endpoint(s) not in the file were kept (--prune deletes them).');
    expect(await snapshot(a)).toEqual(before);
    const r = await upfleet(['monitors', 'apply', '-f', file, '--prune', '--api-key', a.key]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Created 0, updated 0, deleted 1; 2 unchanged.');
    expect(await snapshot(a)).toEqual(before.filter((e: any) => e.name !== 'API'));
  });

  it('refuses a bad file before changing anything, naming the file, the monitor and the field', async () => {
    const before = await snapshot(a);
    const cases: Array<[string, string]> = [
      ['monitors:\n  - { name: Home, url: https://example.com/ }\n  - { name: Broken, url: "ftp://x.example.com" }\n', 'bad.yaml: monitor "Broken": url: URL must start with http:// or https://'],
      ['monitors:\n  - { name: Home, url: https://example.com/, regions: [Mars-Base] }\n', 'bad.yaml: monitor "Home": regions: Unknown region: Mars-Base'],
      ['monitors:\n  - { name: Home, url: https://example.com/, feature: [ping_host] }\n', 'bad.yaml: monitor "Home": feature: unknown field'],
      ['monitors:\n  - { name: Home, url: https://example.com/, features: [pong] }\n', 'bad.yaml: monitor "Home": features[0]: features must be a list of ping_host, cert_expiry, response_code, response_time'],
      ['monitors:\n  - name: Home\n    url: https://example.com/\n    alert_thresholds: [{ type: response_time, operator: ">", value: -3 }]\n', `bad.yaml: monitor "Home": alert_thresholds[0].value: ${MESSAGES.invalidThresholds}`],
      ['monitors:\n  - { name: Home, url: https://example.com/ }\n  - { name: home, url: https://other.example.com/ }\n', 'bad.yaml: monitor "home": name: appears more than once in the file (monitors are matched by name)'],
      ['monitors:\n  - { url: https://example.com/ }\n', 'bad.yaml: monitor #1: name: Name is required'],
      ['monitors: [\n', 'bad.yaml: not valid YAML'],
      ['monitors:\n  - { name: Home, url: https://example.com/ }\n  - { name: Copy, url: https://example.com }\n', 'bad.yaml: monitor "Copy": url: https://example.com/ is also the URL of "Home" (one endpoint per URL)'],
    ];
    for (const [text, message] of cases) {
      write('bad.yaml', text);
      const r = await upfleet(['monitors', 'apply', '-f', 'bad.yaml', '--prune', '--api-key', a.key]);
      expect(r.code, text).toBe(1);
      expect(r.stderr.trim().split('\n'), text).toHaveLength(1);
      expect(r.stderr, text).toContain(`upfleet: ${message}`);
    }
    // Without --prune the endpoints the file lacks stay, and so do their URLs.
    write('bad.yaml', 'monitors:\n  - { name: Other, url: https://status.example.com/ }\n');
    const taken = await upfleet(['monitors', 'apply', '-f', 'bad.yaml', '--api-key', a.key]);
    expect(taken.stderr).toBe('upfleet: bad.yaml: monitor "Other": url: https://status.example.com/ is also the URL of "Status" (one endpoint per URL)\n');
    expect(await snapshot(a)).toEqual(before);
  });

  it('carries an endpoint\'s own check interval: apply sets it, export writes it, a second apply changes nothing; below the plan it is refused', async () => {
    write('interval.yaml', 'monitors:\n  - { name: Slow, url: https://slow.example.com/, check_frequency_seconds: 900 }\n');
    const r = await upfleet(['monitors', 'apply', '-f', 'interval.yaml', '--api-key', a.key]);
    expect(r.code, r.stderr).toBe(0);
    const slow = (await snapshot(a)).find((e: any) => e.name === 'Slow') as any;
    expect(slow.check_frequency_seconds).toBe(900);
    const out = await upfleet(['monitors', 'export', '--api-key', a.key]);
    expect(out.stdout).toMatch(/name: Slow\n\s+url: https:\/\/slow\.example\.com\/\n\s+check_frequency_seconds: 900\n/);
    write('export.yaml', out.stdout);
    const again = await upfleet(['monitors', 'apply', '-f', 'export.yaml', '--api-key', a.key]);
    expect(again.stdout).toMatch(/Created 0, updated 0, deleted 0/);
    write('interval.yaml', 'monitors:\n  - { name: Slow, url: https://slow.example.com/, check_frequency_seconds: 120 }\n');
    const changed = await upfleet(['monitors', 'apply', '-f', 'interval.yaml', '--api-key', a.key]);
    expect(changed.stdout).toContain('check_frequency_seconds');
    expect(((await snapshot(a)).find((e: any) => e.name === 'Slow') as any).check_frequency_seconds).toBe(120);
    const before = await snapshot(a);
    write('fast.yaml', 'monitors:\n  - { name: Fast, url: https://fast.example.com/, check_frequency_seconds: 5 }\n');
    const fast = await upfleet(['monitors', 'apply', '-f', 'fast.yaml', '--api-key', a.key]);
    expect(fast.code).toBe(1);
    expect(fast.stderr).toBe(`upfleet: fast.yaml: monitor "Fast": interval: ${MESSAGES.intervalNotInPlan(30, 'Pro')}\n`);
    expect(await snapshot(a)).toEqual(before);
  });

  it('lists every problem of a file, each on its own line, not only the first', async () => {
    const before = await snapshot(a);
    write('three.yaml', [
      'monitors:',
      '  - { name: Broken, url: "ftp://x.example.com" }',
      '  - { name: Api, url: https://api.example.com/, regions: [Mars-Base] }',
      '  - { name: api, url: https://other.example.com/ }',
      '',
    ].join('\n'));
    const r = await upfleet(['monitors', 'apply', '-f', 'three.yaml', '--api-key', a.key]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe([
      'upfleet: three.yaml: 3 problems (nothing was changed):',
      '  three.yaml: monitor "Broken": url: URL must start with http:// or https://',
      '  three.yaml: monitor "Api": regions: Unknown region: Mars-Base',
      '  three.yaml: monitor "api": name: appears more than once in the file (monitors are matched by name)',
      '',
    ].join('\n'));
    expect(r.stderr).not.toContain('more)');
    expect(await snapshot(a)).toEqual(before);
  });

  it('refuses a file beyond the plan with the SPEC message, before changing anything', async () => {
    expect((await h.call('POST', '/api/admin/regions', { region: 'SA', city: 'Santiago' }, h.cp.adminToken)).status).toBe(201);
    const before = await snapshot(a);
    write('regions.yaml', 'monitors:\n  - { name: Home, url: https://example.com/, regions: [EU-Germany, US-Virginia, AP-Singapore, SA-Santiago] }\n');
    const r = await upfleet(['monitors', 'apply', '-f', 'regions.yaml', '--api-key', a.key]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`upfleet: regions.yaml: monitor "Home": regions: ${MESSAGES.tooManyRegions(3, 'Pro')}\n`);

    // Past the endpoint limit: the last of the new monitors would be one too many.
    h.cp.db.prepare("UPDATE packages SET max_endpoints = 4 WHERE package_name = 'Pro'").run();
    await h.cp.reloadCatalog();
    try {
      write('many.yaml', `monitors:\n${[1, 2].map((i) => `  - { name: New ${i}, url: https://n${i}.example.com/ }\n`).join('')}`);
      const many = await upfleet(['monitors', 'apply', '-f', 'many.yaml', '--api-key', a.key]);
      expect(many.stderr).toBe(`upfleet: many.yaml: ${MESSAGES.tooManyEndpoints(4, 'Pro')}\n`);
      expect(await snapshot(a)).toEqual(before);
      // With --prune the three seeded endpoints go, so two new ones fit.
      const pruned = await upfleet(['monitors', 'apply', '-f', 'many.yaml', '--prune', '--api-key', a.key]);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect((await snapshot(a)).map((e: any) => e.name)).toEqual(['New 1', 'New 2']);
    } finally {
      h.cp.db.prepare("UPDATE packages SET max_endpoints = 200 WHERE package_name = 'Pro'").run();
      await h.cp.reloadCatalog();
    }
  });
});

describe('upfleet monitors credentials', () => {
  it('asks for a key, names a rejected key, and carries the plan message after a downgrade', async () => {
    const none = await upfleet(['monitors', 'export']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^upfleet: No API key: pass --api-key or set UPFLEET_API_KEY/);
    const bad = await upfleet(['monitors', 'export'], { UPFLEET_API_KEY: 'upk_wrong' });
    expect(bad.stderr).toBe(`upfleet: API key rejected by ${h.cp.url} (Invalid API key): check --api-key or UPFLEET_API_KEY\n`);
    const a = await proAccount();
    await h.setPackage(a.email, 'Free');
    const down = await upfleet(['monitors', 'export', '--api-key', a.key]);
    expect(down.stderr).toBe(`upfleet: ${MESSAGES.apiAccessNotInPlan}\n`);
  });

  it('runs as the real upfleet binary with UPFLEET_API_KEY', async () => {
    const a = await proAccount('Business');
    await seed(a);
    // Asynchronously: the control plane answers from this process.
    const r = await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'cli/bin/upfleet.js'), 'monitors', 'export', '--server', h.cp.url], {
      encoding: 'utf8', timeout: 60_000, env: { ...process.env, UPFLEET_API_KEY: a.key },
    });
    expect(parse(r.stdout).monitors.map((m: { name: string }) => m.name)).toEqual(['Home', 'API', 'Status']);
  });
});

describe('upfleet monitors apply is all or nothing', () => {
  it('a file the server refuses in part (a private target after two good monitors) changes nothing, --dry-run says so too; fixed, it applies', async () => {
    const strict = await startHarness({ ALLOW_PRIVATE_TARGETS: '0' });
    try {
      const s = await strict.signup();
      await strict.setPackage(s.user.email, 'Pro');
      const key = (await strict.call('POST', '/api/users/api-keys', { name: 'atomic' }, s.token)).body.data.key as string;
      const kept = (await strict.call('POST', '/api/users/endpoints', { name: 'Kept', url: 'https://kept.example.com/', regions: ['EU-Germany'], response_code: true }, s.token)).body.data.url_id;
      const list = async () => (await strict.call('GET', '/api/users/endpoints-with-uptime', undefined, s.token)).body.data.map((e: any) => [e.name, e.url]);
      const before = await list();
      const run = async (args: string[]) => {
        let stdout = '';
        let stderr = '';
        const code = await runCli([...args, '--server', strict.cp.url, '--api-key', key], { env: {}, cwd: tmp, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
        return { code, stdout, stderr };
      };
      const file = write('atomic.yaml', [
        'monitors:',
        '  - { name: Kept, url: "https://kept.example.com/moved" }',
        '  - { name: One, url: "https://one.example.com/" }',
        '  - { name: Two, url: "https://two.example.com/" }',
        '  - { name: Inside, url: "http://10.0.0.7/admin" }',
        '  - { name: Metadata, url: "http://169.254.169.254/latest/" }',
        '',
      ].join('\n'));
      for (const extra of [[], ['--dry-run']]) {
        const r = await run(['monitors', 'apply', '-f', file, ...extra]);
        expect([r.code, r.stderr]).toEqual([1, 'upfleet: atomic.yaml: monitor "Inside": URL must point to a public address; monitor "Metadata": URL must point to a public address (nothing was changed)\n']);
        expect(await list()).toEqual(before);
      }
      write('atomic.yaml', fs.readFileSync(path.join(tmp, file), 'utf8').split('\n').filter((l) => !/Inside|Metadata/.test(l)).join('\n'));
      const ok = await run(['monitors', 'apply', '-f', file]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(await list()).toEqual([['Kept', 'https://kept.example.com/moved'], ['One', 'https://one.example.com/'], ['Two', 'https://two.example.com/']]);
      expect(kept).toBeGreaterThan(0);
    } finally {
      await strict.close();
    }
  });
});
