// Over HTTP on the real control plane: every data route × every role in a shared workspace
// (what each role may do, the exact 403 otherwise, nothing changed by a refusal), two workspaces that
// never see each other, API keys bound to one workspace and their maker's role, membership that ends
// at once, workspace CRUD, and the audit log of every mutation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Role = 'owner' | 'admin' | 'editor' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'editor', 'viewer'];
const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

const inWs = (ws: number) => ({ 'x-workspace-id': String(ws) });
const endpointBody = (n: string) => ({ name: `Site ${n}`, url: `https://example.com/${n}`, regions: ['EU-Germany'], response_code: true });
const methodBody = { platform: 'email', platform_config: { email_address: 'ops@example.com' } };

/** Moves a workspace to a plan through the admin API (its account address is what set-package takes). */
async function setWorkspacePlan(ws: number, plan: string) {
  const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
  await h.setPackage(list.find((w) => w.id === ws)!.account_email, plan);
}

async function createWorkspace(token: string, name: string): Promise<number> {
  const r = await h.call('POST', '/api/workspaces', { name }, token);
  expect(r.status).toBe(201);
  expect(r.body.data).toMatchObject({ name, role: 'owner', personal: false, package_name: 'Free' });
  return r.body.data.id;
}

/** Invites `email` with `role` and accepts as `token` (without SMTP the answer carries the link). */
async function join(ownerToken: string, ws: number, who: { token: string; email: string }, role: Exclude<Role, 'owner'>) {
  const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: who.email, role }, ownerToken);
  expect(inv.status).toBe(201);
  const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
  const acc = await h.call('POST', `/api/invitations/${token}/accept`, undefined, who.token);
  expect(acc.status, JSON.stringify(acc.body)).toBe(200);
  expect(acc.body.data).toMatchObject({ id: ws, role });
}

describe('a user who never invites anyone', () => {
  it('has one personal workspace, and every route answers the same with or without its X-Workspace-Id', async () => {
    const u = await h.signup();
    const ws = (await h.call('GET', '/api/workspaces', undefined, u.token)).body.data;
    expect(ws).toEqual([expect.objectContaining({ id: u.user.id, personal: true, role: 'owner', package_name: 'Free' })]);
    const e = await h.call('POST', '/api/users/endpoints', endpointBody('solo'), u.token);
    expect(e.status).toBe(201);
    const plain = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, u.token);
    const scoped = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, u.token, inWs(u.user.id));
    expect(scoped.body.data).toEqual(plain.body.data);
    expect(plain.body.data.map((x: { url_id: number }) => x.url_id)).toEqual([e.body.data.url_id]);
    // the personal workspace can be neither deleted nor left
    expect((await h.call('DELETE', `/api/workspaces/${u.user.id}`, { password: 'correct horse' }, u.token)).status).toBe(400);
    expect((await h.call('DELETE', `/api/workspaces/${u.user.id}/members/${u.user.id}`, undefined, u.token)).status).toBe(400);
  });
});

describe('role × route matrix over two workspaces', () => {
  const people = {} as Record<Role | 'stranger', { token: string; email: string; id: number }>;
  let A = 0;
  let B = 0;
  let eA = 0;
  let mA = 0;
  let eB = 0;
  let mB = 0;
  let pA = 0;
  const pASlug = `team-a-${process.pid}`;

  beforeAll(async () => {
    for (const r of [...ROLES, 'stranger'] as const) {
      const s = await h.signup();
      people[r] = { token: s.token, email: s.user.email, id: s.user.id };
    }
    A = await createWorkspace(people.owner.token, 'Team A');
    await setWorkspacePlan(A, 'Pro');
    for (const r of ['admin', 'editor', 'viewer'] as const) await join(people.owner.token, A, people[r], r);
    eA = (await h.call('POST', '/api/users/endpoints', endpointBody('a'), people.owner.token, inWs(A))).body.data.url_id;
    mA = (await h.call('POST', '/api/users/alert-methods', methodBody, people.owner.token, inWs(A))).body.data.alert_method_id;
    pA = (await h.call('POST', '/api/users/status-pages', { slug: pASlug, title: 'Team A status' }, people.owner.token, inWs(A))).body.data.id;
    expect(pA).toBeGreaterThan(0);
    // B: the stranger's workspace, with data of its own
    B = await createWorkspace(people.stranger.token, 'Team B');
    await setWorkspacePlan(B, 'Pro');
    eB = (await h.call('POST', '/api/users/endpoints', endpointBody('b'), people.stranger.token, inWs(B))).body.data.url_id;
    mB = (await h.call('POST', '/api/users/alert-methods', methodBody, people.stranger.token, inWs(B))).body.data.alert_method_id;
  });

  /** Everything a refused request could have changed in a workspace, read by its owner. */
  async function snapshot(ws: number, token: string) {
    const get = async (p: string) => (await h.call('GET', p, undefined, token, inWs(ws))).body.data;
    const endpoints = await get('/api/users/endpoints-with-uptime');
    return {
      endpoints, methods: await get('/api/users/alert-methods'), pages: await get('/api/users/status-pages'), windows: await get('/api/users/maintenance-windows'),
      reports: pA ? await get(`/api/users/status-pages/${pA}/reports`) : null, keys: await get('/api/users/api-keys'), notices: await get('/api/billing/notices'),
      thresholds: await Promise.all(endpoints.map((e: { url_id: number }) => get(`/api/users/endpoints/${e.url_id}/alert-thresholds`))),
    };
  }

  interface Case { method: string; path: () => string | Promise<string>; body?: () => unknown; role: Role }
  const fresh = {
    endpoint: async () => (await h.call('POST', '/api/users/endpoints', endpointBody(`x${Math.random()}`), people.owner.token, inWs(A))).body.data.url_id as number,
    page: async () => (await h.call('POST', '/api/users/status-pages', { slug: `p-${Math.random().toString(36).slice(2, 10)}`, title: 'Doomed' }, people.owner.token, inWs(A))).body.data.id as number,
    key: async () => (await h.call('POST', '/api/users/api-keys', { name: 'k' }, people.owner.token, inWs(A))).body.data.id as number,
  };
  const CASES: Case[] = [
    { method: 'GET', path: () => '/api/users/dashboard', role: 'viewer' },
    { method: 'GET', path: () => '/api/users/endpoints-with-uptime', role: 'viewer' },
    { method: 'GET', path: () => '/api/users/endpoints-with-uptime?limit=10&offset=0', role: 'viewer' },
    { method: 'POST', path: () => '/api/users/endpoints', body: () => endpointBody(`n${Math.random()}`), role: 'editor' },
    { method: 'POST', path: () => '/api/users/endpoints?dry_run=1', body: () => endpointBody('dry'), role: 'editor' },
    { method: 'PUT', path: () => `/api/users/endpoints/${eA}`, body: () => endpointBody(`u${Math.random()}`), role: 'editor' },
    { method: 'PATCH', path: () => `/api/users/endpoints/${eA}/toggle`, body: () => ({ monitoring_enabled: true }), role: 'editor' },
    { method: 'DELETE', path: async () => `/api/users/endpoints/${await fresh.endpoint()}`, role: 'editor' },
    { method: 'GET', path: () => `/api/users/endpoints/${eA}/alert-thresholds`, role: 'viewer' },
    { method: 'PUT', path: () => `/api/users/endpoints/${eA}/alert-thresholds`, body: () => ({ alert_thresholds: [] }), role: 'editor' },
    { method: 'GET', path: () => '/api/users/regions', role: 'viewer' },
    { method: 'GET', path: () => '/api/users/monitor-types', role: 'viewer' },
    { method: 'GET', path: () => '/api/users/alert-methods', role: 'viewer' },
    { method: 'POST', path: () => '/api/users/alert-methods', body: () => ({ platform: 'slack', platform_config: { bot_token: 'xoxb-secret-1', channel: 'C1' } }), role: 'admin' },
    { method: 'PUT', path: () => `/api/users/alert-methods/${mA}`, body: () => ({ ...methodBody, is_enabled: true }), role: 'admin' },
    { method: 'GET', path: () => `/api/users/alert-methods/${mA}/signing-secret`, role: 'admin' },
    { method: 'POST', path: () => `/api/users/alert-methods/${mA}/test`, role: 'admin' },
    { method: 'GET', path: () => `/api/users/alert-methods/${mA}/deliveries`, role: 'viewer' },
    { method: 'GET', path: () => '/api/users/incidents', role: 'viewer' },
    { method: 'GET', path: () => '/api/users/api-keys', role: 'viewer' },
    { method: 'POST', path: () => '/api/users/api-keys', body: () => ({ name: 'matrix' }), role: 'admin' },
    { method: 'DELETE', path: async () => `/api/users/api-keys/${await fresh.key()}`, role: 'admin' },
    { method: 'GET', path: () => `/api/graphs/endpoint/${eA}?hours=1`, role: 'viewer' },
    { method: 'GET', path: () => '/api/users/status-pages', role: 'viewer' },
    { method: 'POST', path: () => '/api/users/status-pages', body: () => ({ slug: `s-${Math.random().toString(36).slice(2, 10)}`, title: 'New page' }), role: 'admin' },
    { method: 'PUT', path: () => `/api/users/status-pages/${pA}`, body: () => ({ slug: pASlug, title: 'Team A status' }), role: 'admin' },
    { method: 'DELETE', path: async () => `/api/users/status-pages/${await fresh.page()}`, role: 'admin' },
    { method: 'GET', path: () => `/api/users/status-pages/${pA}/reports`, role: 'viewer' },
    { method: 'POST', path: () => `/api/users/status-pages/${pA}/reports`, body: () => ({ title: 'Slow API', message: 'Looking into it' }), role: 'editor' },
    { method: 'GET', path: () => '/api/users/maintenance-windows', role: 'viewer' },
    { method: 'POST', path: () => '/api/users/maintenance-windows', body: () => ({ title: 'Upgrade', endpoint_ids: [eA], starts_at: new Date(Date.now() + 3600_000).toISOString(), ends_at: new Date(Date.now() + 7200_000).toISOString() }), role: 'editor' },
    { method: 'GET', path: () => '/api/billing/subscription', role: 'viewer' },
    { method: 'GET', path: () => '/api/billing/notices', role: 'viewer' },
    { method: 'POST', path: () => '/api/billing/create-checkout-session', body: () => ({ package_id: 2 }), role: 'owner' },
    { method: 'POST', path: () => '/api/billing/notices/999/dismiss', role: 'admin' },
  ];

  for (const c of CASES) {
    it(`${c.method} ${c.path.toString().replace(/^.*=>\s*/, '').slice(0, 70)}: ${c.role} and above may, the others get 403 and change nothing`, async () => {
      for (const role of ROLES) {
        const p = await c.path();
        const before = await snapshot(A, people.owner.token);
        const r = await h.call(c.method, p, c.body?.(), people[role].token, inWs(A));
        if (RANK[role] >= RANK[c.role]) {
          expect(r.status, `${role} ${c.method} ${p}: ${JSON.stringify(r.body)}`).not.toBe(403);
          expect(r.body.error).not.toBe('Workspace not found');
        } else {
          expect(r.status, `${role} ${c.method} ${p}`).toBe(403);
          expect(r.body).toEqual({ success: false, error: MESSAGES.roleNotAllowed(role) });
          expect(await snapshot(A, people.owner.token)).toEqual(before);
        }
      }
    });
  }

  it('no one reaches a workspace they are not in (404) and B is unchanged after every case', async () => {
    const bBefore = await snapshot(B, people.stranger.token);
    for (const role of ROLES) {
      for (const c of CASES) {
        const p = (await c.path()).replace(String(eA), String(eB)).replace(`alert-methods/${mA}`, `alert-methods/${mB}`);
        const r = await h.call(c.method, p, c.body?.(), people[role].token, inWs(B));
        expect(r.status, `${role} ${c.method} ${p} in B`).toBe(404);
        expect(r.body).toEqual({ success: false, error: 'Workspace not found' });
      }
      // B's ids through A: not found either
      for (const p of [`/api/users/endpoints/${eB}/alert-thresholds`, `/api/graphs/endpoint/${eB}?hours=1`, `/api/users/alert-methods/${mB}/deliveries`]) {
        expect((await h.call('GET', p, undefined, people[role].token, inWs(A))).status, `${role} ${p} via A`).toBe(404);
      }
      expect((await h.call('GET', `/api/workspaces/${B}/members`, undefined, people[role].token)).status).toBe(404);
    }
    for (const bad of ['abc', '-1', '0', '99999999']) {
      expect((await h.call('GET', '/api/users/dashboard', undefined, people.owner.token, { 'x-workspace-id': bad })).status).toBe(404);
    }
    const after = await snapshot(B, people.stranger.token);
    expect(after).toEqual(bBefore);
    expect(after.endpoints.map((e: { url_id: number }) => e.url_id)).toEqual([eB]);
    // a member's own personal workspace never shows A's data
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, people.viewer.token)).body.data).toEqual([]);
  });

  it('workspace routes: admins rename and see invitations and the log; only the owner deletes; viewers and editors get 403', async () => {
    for (const role of ROLES) {
      const rename = await h.call('PUT', `/api/workspaces/${A}`, { name: 'Team A' }, people[role].token);
      expect(rename.status, role).toBe(RANK[role] >= RANK.admin ? 200 : 403);
      expect((await h.call('GET', `/api/workspaces/${A}/invitations`, undefined, people[role].token)).status).toBe(RANK[role] >= RANK.admin ? 200 : 403);
      expect((await h.call('GET', `/api/workspaces/${A}/audit-log`, undefined, people[role].token)).status).toBe(RANK[role] >= RANK.admin ? 200 : 403);
      expect((await h.call('GET', `/api/workspaces/${A}/members`, undefined, people[role].token)).body.data).toHaveLength(4);
      if (role !== 'owner') {
        const del = await h.call('DELETE', `/api/workspaces/${A}`, { password: 'correct horse' }, people[role].token);
        expect(del.body).toEqual({ success: false, error: MESSAGES.roleNotAllowed(role) });
        const invite = await h.call('POST', `/api/workspaces/${A}/invitations`, { email: 'x@example.com', role: 'viewer' }, people[role].token);
        expect(invite.status).toBe(RANK[role] >= RANK.admin ? 201 : 403);
      }
    }
    expect((await h.call('POST', `/api/workspaces/${A}/invitations`, { email: 'not-an-email', role: 'viewer' }, people.owner.token)).status).toBe(400);
    expect((await h.call('POST', `/api/workspaces/${A}/invitations`, { email: 'y@example.com', role: 'owner' }, people.owner.token)).status).toBe(400);
    expect((await h.call('PUT', `/api/workspaces/${A}`, { name: '' }, people.owner.token)).status).toBe(400);
  });
});

describe('members, API keys and the audit log', () => {
  it('an API key acts in its workspace only, with its maker\'s role now; removal ends the member\'s access and keys at once', async () => {
    const owner = await h.signup();
    const alice = await h.signup();
    const ws = await createWorkspace(owner.token, 'Keys');
    await setWorkspacePlan(ws, 'Pro');
    await join(owner.token, ws, { token: alice.token, email: alice.user.email }, 'admin');
    const key = (await h.call('POST', '/api/users/api-keys', { name: 'ci' }, alice.token, inWs(ws))).body.data.key as string;
    const made = await h.call('POST', '/api/users/endpoints', endpointBody('by-key'), key);
    expect(made.status).toBe(201);
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, owner.token, inWs(ws))).body.data.map((e: { url_id: number }) => e.url_id)).toContain(made.body.data.url_id);
    // not in alice's personal workspace, and another X-Workspace-Id is a 404
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, alice.token)).body.data).toEqual([]);
    expect((await h.call('GET', '/api/users/dashboard', undefined, key, inWs(alice.user.id))).status).toBe(404);
    // the key follows its maker's role
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${alice.user.id}`, { role: 'viewer' }, owner.token)).body.data).toMatchObject({ role: 'viewer', previous_role: 'admin' });
    const refused = await h.call('POST', '/api/users/endpoints', endpointBody('as-viewer'), key);
    expect(refused.body).toEqual({ success: false, error: MESSAGES.roleNotAllowed('viewer') });
    expect((await h.call('GET', '/api/users/dashboard', undefined, key)).status).toBe(200);
    // removed: the session and the key are refused on the next request
    expect((await h.call('DELETE', `/api/workspaces/${ws}/members/${alice.user.id}`, undefined, owner.token)).status).toBe(200);
    expect((await h.call('GET', '/api/users/dashboard', undefined, alice.token, inWs(ws))).status).toBe(404);
    expect((await h.call('GET', '/api/users/dashboard', undefined, key)).status).toBe(401);
    expect((await h.call('GET', '/api/workspaces', undefined, alice.token)).body.data.map((w: { id: number }) => w.id)).toEqual([alice.user.id]);
  });

  it('always keeps one owner; ownership is given by an owner; a member may leave', async () => {
    const owner = await h.signup();
    const bob = await h.signup();
    const ws = await createWorkspace(owner.token, 'Owners');
    await setWorkspacePlan(ws, 'Starter');
    await join(owner.token, ws, { token: bob.token, email: bob.user.email }, 'admin');
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${owner.user.id}`, { role: 'viewer' }, owner.token)).status).toBe(400);
    expect((await h.call('DELETE', `/api/workspaces/${ws}/members/${owner.user.id}`, undefined, owner.token)).status).toBe(400);
    // an admin cannot make themselves owner nor touch the owner
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${bob.user.id}`, { role: 'owner' }, bob.token)).body.error).toBe(MESSAGES.roleNotAllowed('admin'));
    expect((await h.call('DELETE', `/api/workspaces/${ws}/members/${owner.user.id}`, undefined, bob.token)).status).toBe(403);
    // transfer: the owner makes bob owner, then steps down
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${bob.user.id}`, { role: 'owner' }, owner.token)).status).toBe(200);
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${owner.user.id}`, { role: 'editor' }, owner.token)).status).toBe(200);
    expect((await h.call('GET', `/api/workspaces/${ws}/members`, undefined, owner.token)).body.data.map((m: { role: string }) => m.role).sort()).toEqual(['editor', 'owner']);
    // leaving
    expect((await h.call('DELETE', `/api/workspaces/${ws}/members/${owner.user.id}`, undefined, owner.token)).status).toBe(200);
    expect((await h.call('GET', `/api/workspaces/${ws}`, undefined, owner.token)).status).toBe(404);
    // deleting needs the owner's password; the workspace's endpoints go with it
    await h.call('POST', '/api/users/endpoints', endpointBody('doomed'), bob.token, inWs(ws));
    expect((await h.call('DELETE', `/api/workspaces/${ws}`, { password: 'wrong password' }, bob.token)).status).toBe(400);
    expect((await h.call('DELETE', `/api/workspaces/${ws}`, {}, bob.token)).status).toBe(400);
    expect((await h.call('DELETE', `/api/workspaces/${ws}`, { password: 'correct horse' }, bob.token)).status).toBe(200);
    expect((await h.call('GET', '/api/users/dashboard', undefined, bob.token, inWs(ws))).status).toBe(404);
    expect((await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data.map((w: { id: number }) => w.id)).not.toContain(ws);
  });

  it('logs every mutation with member, action, target, a summary without secrets and the client address; pages and filters', async () => {
    const owner = await h.signup();
    const ed = await h.signup();
    const ws = await createWorkspace(owner.token, 'Audited');
    await setWorkspacePlan(ws, 'Pro');
    await join(owner.token, ws, { token: ed.token, email: ed.user.email }, 'editor');
    const e = (await h.call('POST', '/api/users/endpoints', endpointBody('logged'), ed.token, inWs(ws))).body.data.url_id;
    await h.call('POST', '/api/users/endpoints?dry_run=1', endpointBody('dry'), ed.token, inWs(ws)); // not a change
    await h.call('POST', '/api/users/alert-methods', methodBody, ed.token, inWs(ws)); // refused: not logged
    await h.call('POST', '/api/users/alert-methods', { platform: 'slack', platform_config: { bot_token: 'xoxb-very-secret', channel: 'C1' } }, owner.token, inWs(ws));
    await h.call('PUT', `/api/workspaces/${ws}/members/${ed.user.id}`, { role: 'viewer' }, owner.token);
    await h.call('POST', '/api/users/api-keys', { name: 'deploy' }, owner.token, inWs(ws));
    const log = await h.call('GET', `/api/workspaces/${ws}/audit-log`, undefined, owner.token);
    expect(log.status).toBe(200);
    const actions = log.body.data.map((x: { action: string }) => x.action);
    expect(actions).toEqual(['api_key.create', 'member.role_change', 'alert_method.create', 'endpoint.create', 'member.join', 'invitation.create', 'workspace.create']);
    const created = log.body.data.find((x: { action: string }) => x.action === 'endpoint.create');
    expect(created).toMatchObject({ member_id: ed.user.id, member_name: ed.user.username, target_id: String(e), client_address: expect.stringMatching(/127\.0\.0\.1/) });
    expect(created.summary).toContain('name=Site logged');
    expect(new Date(created.at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const role = log.body.data.find((x: { action: string }) => x.action === 'member.role_change');
    expect(role).toMatchObject({ target_id: String(ed.user.id), summary: 'role=viewer, previous_role=editor' });
    expect(JSON.stringify(log.body.data)).not.toContain('xoxb-very-secret');
    expect(JSON.stringify(log.body.data)).not.toContain('upk_');
    const page = await h.call('GET', `/api/workspaces/${ws}/audit-log?limit=2&offset=1`, undefined, owner.token);
    expect(page.headers.get('x-total-count')).toBe('7');
    expect(page.body.data.map((x: { action: string }) => x.action)).toEqual(['member.role_change', 'alert_method.create']);
    const byMember = await h.call('GET', `/api/workspaces/${ws}/audit-log?member_id=${ed.user.id}`, undefined, owner.token);
    expect(byMember.body.data.map((x: { action: string }) => x.action)).toEqual(['endpoint.create', 'member.join']);
    const byAction = await h.call('GET', `/api/workspaces/${ws}/audit-log?action=member`, undefined, owner.token);
    expect(byAction.body.data.map((x: { action: string }) => x.action)).toEqual(['member.role_change', 'member.join']);
    expect((await h.call('GET', `/api/workspaces/${ws}/audit-log?limit=0`, undefined, owner.token)).status).toBe(400);
    expect((await h.call('GET', `/api/workspaces/${ws}/audit-log`, undefined, ed.token)).body.error).toBe(MESSAGES.roleNotAllowed('viewer'));
  });
});

describe('audit actions of the status pages and maintenance windows', () => {
  it('names them and keeps their target', async () => {
    const owner = await h.signup();
    const ws = await createWorkspace(owner.token, 'Pages');
    await setWorkspacePlan(ws, 'Pro');
    const e = (await h.call('POST', '/api/users/endpoints', endpointBody('pages'), owner.token, inWs(ws))).body.data.url_id;
    const page = (await h.call('POST', '/api/users/status-pages', { slug: `pages-${process.pid}`, title: 'Pages' }, owner.token, inWs(ws))).body.data.id;
    const report = await h.call('POST', `/api/users/status-pages/${page}/reports`, { title: 'Down', message: 'On it' }, owner.token, inWs(ws));
    expect(report.status).toBe(201);
    await h.call('POST', '/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [e], starts_at: new Date(Date.now() + 3600_000).toISOString(), ends_at: new Date(Date.now() + 7200_000).toISOString() }, owner.token, inWs(ws));
    const log = (await h.call('GET', `/api/workspaces/${ws}/audit-log?limit=3`, undefined, owner.token)).body.data;
    expect(log.map((x: { action: string; target_id: string }) => [x.action, x.target_id])).toEqual([
      ['maintenance.create', expect.any(String)], ['status_report.create', expect.any(String)], ['status_page.create', String(page)],
    ]);
    expect(log[1].summary).toContain('title=Down');
  });
});

describe('invitation limits', () => {
  it('a member sends at most 30 invitations an hour, then 429 and nothing is made', async () => {
    const owner = await h.signup();
    const ws = await createWorkspace(owner.token, 'Big');
    await setWorkspacePlan(ws, 'Business');
    for (let i = 0; i < 30; i++) {
      expect((await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: `p${i}@example.com`, role: 'viewer' }, owner.token)).status).toBe(201);
    }
    const over = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'p30@example.com', role: 'viewer' }, owner.token);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ success: false, error: 'Too many invitations. Please try again later.' });
    expect((await h.call('GET', `/api/workspaces/${ws}/invitations`, undefined, owner.token)).body.data).toHaveLength(30);
  });
});

describe('the live event stream', () => {
  it('is per workspace: a member hears the shared workspace\'s changes there, not in their personal stream, and a stranger gets 404', async () => {
    const { openSse } = await import('../../../tests/helpers/sse');
    const owner = await h.signup();
    const member = await h.signup();
    const stranger = await h.signup();
    const ws = await createWorkspace(owner.token, 'Live');
    await setWorkspacePlan(ws, 'Starter');
    await join(owner.token, ws, { token: member.token, email: member.user.email }, 'viewer');
    const shared = await openSse(`${h.cp.url}/api/users/events`, { authorization: `Bearer ${member.token}`, 'x-workspace-id': String(ws) });
    const personal = await openSse(`${h.cp.url}/api/users/events`, { authorization: `Bearer ${member.token}` });
    try {
      expect(shared.status).toBe(200);
      const e = (await h.call('POST', '/api/users/endpoints', endpointBody('live'), owner.token, inWs(ws))).body.data.url_id;
      await h.call('DELETE', `/api/users/endpoints/${e}`, undefined, owner.token, inWs(ws));
      const heard = await shared.next((x) => x.event === 'endpoint.changed' && (x.data as { url_id: number }).url_id === e, 10_000);
      expect(heard).toMatchObject({ event: 'endpoint.changed', data: { url_id: e } });
      expect(personal.events.filter((x) => x.event === 'endpoint.changed')).toEqual([]);
      const refused = await fetch(`${h.cp.url}/api/users/events`, { headers: { authorization: `Bearer ${stranger.token}`, 'x-workspace-id': String(ws) } });
      expect(refused.status).toBe(404);
    } finally {
      shared.close();
      personal.close();
    }
  });
});

describe('the live event stream of a member whose access ends', () => {
  it('ends at once when the member is removed (their personal stream goes on), and every stream ends when the workspace is deleted', async () => {
    const { openSse } = await import('../../../tests/helpers/sse');
    const owner = await h.signup();
    const member = await h.signup();
    const ws = await createWorkspace(owner.token, 'Cut');
    await setWorkspacePlan(ws, 'Starter');
    await join(owner.token, ws, { token: member.token, email: member.user.email }, 'viewer');
    const shared = await openSse(`${h.cp.url}/api/users/events`, { authorization: `Bearer ${member.token}`, 'x-workspace-id': String(ws) });
    const personal = await openSse(`${h.cp.url}/api/users/events`, { authorization: `Bearer ${member.token}` });
    const owners = await openSse(`${h.cp.url}/api/users/events`, { authorization: `Bearer ${owner.token}`, 'x-workspace-id': String(ws) });
    try {
      expect([shared.status, personal.status, owners.status]).toEqual([200, 200, 200]);
      const within = (p: Promise<void>, ms: number) => Promise.race([p.then(() => 'ended'), new Promise((r) => setTimeout(() => r('open'), ms))]);
      expect(await within(shared.ended, 300)).toBe('open');
      expect((await h.call('DELETE', `/api/workspaces/${ws}/members/${member.user.id}`, undefined, owner.token)).status).toBe(200);
      expect(await within(shared.ended, 5_000)).toBe('ended');
      expect(await within(personal.ended, 300)).toBe('open');
      expect(await within(owners.ended, 300)).toBe('open');
      // What the workspace does next never reaches the removed member.
      const e = (await h.call('POST', '/api/users/endpoints', endpointBody('after-removal'), owner.token, inWs(ws))).body.data.url_id;
      await owners.next((x) => x.event === 'endpoint.changed' && (x.data as { url_id: number }).url_id === e, 10_000);
      expect(shared.events.some((x) => (x.data as { url_id?: number }).url_id === e)).toBe(false);
      expect((await h.call('DELETE', `/api/workspaces/${ws}`, { password: 'correct horse' }, owner.token)).status).toBe(200);
      expect(await within(owners.ended, 5_000)).toBe('ended');
    } finally {
      shared.close();
      personal.close();
      owners.close();
    }
  });
});

describe('routes outside the /users router', () => {
  it('a heartbeat ping log and graphs resolve the endpoint in the request\'s workspace', async () => {
    const owner = await h.signup();
    const member = await h.signup();
    const ws = await createWorkspace(owner.token, 'Outside');
    await setWorkspacePlan(ws, 'Starter');
    await join(owner.token, ws, { token: member.token, email: member.user.email }, 'viewer');
    const e = (await h.call('POST', '/api/users/endpoints', endpointBody('outside'), owner.token, inWs(ws))).body.data.url_id;
    // found in the workspace (an http endpoint has no ping log: 400), not found in the personal one
    const pings = await h.call('GET', `/api/users/endpoints/${e}/pings`, undefined, member.token, inWs(ws));
    expect(pings.body).toEqual({ success: false, error: 'Only a heartbeat endpoint has a ping log' });
    expect((await h.call('GET', `/api/users/endpoints/${e}/pings`, undefined, member.token)).status).toBe(404);
    expect((await h.call('GET', `/api/graphs/endpoint/${e}?hours=1`, undefined, member.token)).status).toBe(404);
    expect((await h.call('GET', `/api/graphs/endpoint/${e}?hours=1`, undefined, member.token, inWs(ws))).status).not.toBe(404);
  });
});

describe('invitations of an admin who loses the right to invite', () => {
  it('the pending list shows who invited; a demotion or removal revokes what that admin sent, and its link no longer works', async () => {
    const owner = await h.signup();
    const alice = await h.signup();
    const bob = await h.signup();
    const later = [await h.signup(), await h.signup(), await h.signup()];
    const ws = await createWorkspace(owner.token, 'Delegated');
    await setWorkspacePlan(ws, 'Business');
    await join(owner.token, ws, { token: alice.token, email: alice.user.email }, 'admin');
    await join(owner.token, ws, { token: bob.token, email: bob.user.email }, 'admin');
    const invite = async (token: string, email: string) => {
      const r = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email, role: 'editor' }, token);
      expect(r.status).toBe(201);
      return { id: r.body.data.id as number, token: /\/invitations\/([A-Za-z0-9_-]+)$/.exec(r.body.data.link)![1] };
    };
    const byAlice = await invite(alice.token, later[0].user.email);
    const byBob = await invite(bob.token, later[1].user.email);
    const byOwner = await invite(owner.token, later[2].user.email);
    const pending = async () => (await h.call('GET', `/api/workspaces/${ws}/invitations`, undefined, owner.token)).body.data as Array<{ id: number; email: string; invited_by: string | null }>;
    expect((await pending()).map((i) => [i.email, i.invited_by])).toEqual([
      [later[0].user.email, alice.user.email], [later[1].user.email, bob.user.email], [later[2].user.email, owner.user.email],
    ]);
    // alice becomes an editor: what she sent goes; bob is removed: what he sent goes too
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${alice.user.id}`, { role: 'editor' }, owner.token)).status).toBe(200);
    expect((await h.call('DELETE', `/api/workspaces/${ws}/members/${bob.user.id}`, undefined, owner.token)).status).toBe(200);
    expect((await pending()).map((i) => i.id)).toEqual([byOwner.id]);
    for (const [inv, who] of [[byAlice, later[0]], [byBob, later[1]]] as const) {
      const r = await h.call('POST', `/api/invitations/${inv.token}/accept`, undefined, who.token);
      expect(r.status).toBe(404);
      expect((await h.call('GET', `/api/workspaces/${ws}`, undefined, who.token)).status).toBe(404);
    }
    expect((await h.call('POST', `/api/invitations/${byOwner.token}/accept`, undefined, later[2].token)).status).toBe(200);
    // a demotion between admins keeps them: an owner made admin again invites as before
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${alice.user.id}`, { role: 'admin' }, owner.token)).status).toBe(200);
    const again = await invite(alice.token, 'someone@example.com');
    expect((await h.call('PUT', `/api/workspaces/${ws}/members/${alice.user.id}`, { role: 'owner' }, owner.token)).status).toBe(200);
    expect((await pending()).map((i) => i.id)).toEqual([again.id]);
  });
});
