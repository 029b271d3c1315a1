// `upfleet incidents list | ack` against the real control plane (in-process, real HTTP on port 0,
// real SQLite) with a real API key: open incidents first, filters by state and endpoint (by name or
// id), acknowledging once, and the server's refusals as one line with exit code 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/src/index';
import { startHarness, type Harness } from '../../control-plane/src/testing/harness';

let h: Harness;
let key: string;
let userId: number;
let shop: number;
let api: number;
let ids: { open: number; resolved: number; apiOpen: number };

beforeAll(async () => {
  h = await startHarness();
  const s = await h.signup('cli_oncall');
  await h.setPackage(s.user.email, 'Pro');
  userId = s.user.id;
  key = (await h.call('POST', '/api/users/api-keys', { name: 'on call' }, s.token)).body.data.key;
  const mk = async (name: string) => (await h.call('POST', '/api/users/endpoints', { name, url: `https://${name.toLowerCase()}.example.com/` }, s.token)).body.data.url_id as number;
  shop = await mk('Shop');
  api = await mk('Api');
  const ins = h.cp.db.prepare(`INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at, resolved_at) VALUES (?, ?, 'down', '[]', ?, ?, ?)`);
  const now = Date.now();
  ids = {
    resolved: Number(ins.run(userId, shop, 'HTTP 500 from EU - Germany', now - 7200_000, now - 7000_000).lastInsertRowid),
    open: Number(ins.run(userId, shop, 'HTTP 503 from EU - Germany', now - 600_000, null).lastInsertRowid),
    apiOpen: Number(ins.run(userId, api, 'connection refused', now - 300_000, null).lastInsertRowid),
  };
});
afterAll(async () => {
  await h?.close();
});

async function upfleet(args: string[], env: Record<string, string> = { UPFLEET_API_KEY: key }) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...args, '--server', h.cp.url], { env, cwd: process.cwd(), stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('upfleet incidents', () => {
  it('lists open incidents first with state, endpoint, cause and duration; filters by state and by endpoint name or id', async () => {
    const all = await upfleet(['incidents', 'list']);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^\s*ID\s+STATE\s+ENDPOINT\s+CONDITION\s+CAUSE\s+OPENED \(UTC\)\s+DURATION\s+ACKNOWLEDGED BY$/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/).slice(0, 3))).toEqual([
      [String(ids.apiOpen), 'open', 'Api'], [String(ids.open), 'open', 'Shop'], [String(ids.resolved), 'resolved', 'Shop'],
    ]);
    expect(lines[3]).toContain('3m20s');

    const resolved = await upfleet(['incidents', 'list', '--state', 'resolved']);
    expect(resolved.stdout.trim().split('\n').slice(1).map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual([ids.resolved]);
    const byName = await upfleet(['incidents', 'list', '--endpoint', 'shop', '--json']);
    expect((JSON.parse(byName.stdout) as Array<{ incident_id: number }>).map((i) => i.incident_id)).toEqual([ids.open, ids.resolved]);
    const byId = await upfleet(['incidents', 'list', '--endpoint', String(api), '--state', 'open', '--json']);
    expect((JSON.parse(byId.stdout) as Array<{ incident_id: number }>).map((i) => i.incident_id)).toEqual([ids.apiOpen]);
  });

  it('acknowledges an open incident once; a second ack and a resolved one fail with the server\'s reason', async () => {
    const ack = await upfleet(['incidents', 'ack', String(ids.open)]);
    expect(ack.code, ack.stderr).toBe(0);
    expect(ack.stdout).toBe(`Acknowledged incident ${ids.open} (Shop: HTTP 503 from EU - Germany) as cli_oncall.\n`);
    const list = JSON.parse((await upfleet(['incidents', 'list', '--state', 'acknowledged', '--json'])).stdout) as Array<{ incident_id: number; acknowledged_by: { name: string } }>;
    expect(list.map((i) => [i.incident_id, i.acknowledged_by.name])).toEqual([[ids.open, 'cli_oncall']]);
    expect((await upfleet(['incidents', 'list', '--state', 'acknowledged'])).stdout).toContain('cli_oncall');

    const again = await upfleet(['incidents', 'ack', String(ids.open)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('This incident is already acknowledged');
    const late = await upfleet(['incidents', 'ack', String(ids.resolved)]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain("A resolved incident can't be acknowledged");
    const missing = await upfleet(['incidents', 'ack', '987654']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Incident not found');
  });

  it('refuses bad flags and a missing key before calling the server', async () => {
    const state = await upfleet(['incidents', 'list', '--state', 'closed']);
    expect(state.code).toBe(1);
    expect(state.stderr).toBe("upfleet: --state must be one of open, acknowledged, resolved (got 'closed')\n");
    expect((await upfleet(['incidents', 'ack', 'abc'])).stderr).toContain('The incident id must be a number');
    expect((await upfleet(['incidents', 'list', '--endpoint', 'Nope'])).stderr).toContain("No endpoint named 'Nope'");
    const noKey = await upfleet(['incidents', 'list'], {});
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('No API key');
  });
});
