// Every API route, enumerated from the routers the running control plane mounted: each data route
// declares its permission (and each mutation its audit action) where it is registered; each role
// gets exactly what the declaration says; and a URL spelled otherwise (upper-case letters, a
// trailing slash) reaches no route for anyone, changes nothing and logs nothing.
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHarness } from '../testing/harness';
import type { DeclaredGate, Permission } from './route-table';

type Role = 'owner' | 'admin' | 'editor' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'editor', 'viewer'];
const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

const h = await startHarness();
afterAll(async () => {
  await h.close();
});

interface Found { method: string; path: string; declaration: DeclaredGate['declaration'] | null }
interface StackLayer { route?: { path: string; methods: Record<string, boolean>; stack: Array<{ handle: unknown }> }; handle: { stack?: StackLayer[] }; match(path: string): boolean }

/** The routes of the /api router as express holds them (nested routers without a path included). */
function apiRoutes(): Found[] {
  const app = h.cp.httpServer.listeners('request')[0] as Express;
  const top = (app as unknown as { router: { stack: StackLayer[] } }).router.stack;
  const api = top.find((l) => l.handle.stack && l.match('/api/health') && !l.match('/elsewhere'));
  if (!api) throw new Error('no /api router');
  const out: Found[] = [];
  const walk = (stack: StackLayer[]) => {
    for (const l of stack) {
      if (l.route) {
        const gate = l.route.stack.map((s) => s.handle).find((f): f is DeclaredGate => typeof f === 'function' && 'declaration' in f);
        for (const m of Object.keys(l.route.methods)) if (m !== '_all') out.push({ method: m.toUpperCase(), path: l.route.path, declaration: gate?.declaration ?? null });
      } else if (l.handle.stack) walk(l.handle.stack);
    }
  };
  walk(api.handle.stack!);
  return out;
}

const ROUTES = apiRoutes();
const DATA = /^\/(users|graphs|billing|workspaces|invitations)(\/|$)/;
const DATA_ROUTES = ROUTES.filter((r) => DATA.test(r.path));
const MUTATION = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const isRole = (p: Permission): p is Role => (ROLES as string[]).includes(p);

const people = {} as Record<Role, { token: string; id: number }>;
let A = 0;
const ids: Record<string, number | string> = {};
const inA = () => ({ 'x-workspace-id': String(A) });

beforeAll(async () => {
  for (const r of ROLES) {
    const s = await h.signup();
    people[r] = { token: s.token, id: s.user.id };
  }
  A = (await h.call('POST', '/api/workspaces', { name: 'Spelled' }, people.owner.token)).body.data.id;
  const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
  await h.setPackage(list.find((w) => w.id === A)!.account_email, 'Pro');
  for (const r of ['admin', 'editor', 'viewer'] as const) {
    const inv = await h.call('POST', `/api/workspaces/${A}/invitations`, { email: `${(await h.call('GET', '/api/users/profile', undefined, people[r].token)).body.data.email}`, role: r }, people.owner.token);
    const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
    expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, people[r].token)).status).toBe(200);
  }
  const make = async (p: string, body: unknown) => {
    const r = await h.call('POST', p, body, people.owner.token, inA());
    expect(r.status, `${p} ${JSON.stringify(r.body)}`).toBe(201);
    return r.body.data;
  };
  ids.endpoint = (await make('/api/users/endpoints', { name: 'Site', url: 'https://example.com/', regions: ['EU-Germany'], response_code: true })).url_id;
  ids.method = (await make('/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: 'https://hooks.example.com/a' } })).alert_method_id;
  ids.page = (await make('/api/users/status-pages', { slug: `spelled-${process.pid}`, title: 'Spelled status' })).id;
  ids.report = (await make(`/api/users/status-pages/${ids.page}/reports`, { title: 'Slow', message: 'Looking' })).report_id;
  ids.update = (await make(`/api/users/status-pages/${ids.page}/reports/${ids.report}/updates`, { status: 'monitoring', message: 'Better' })).updates[0].update_id;
  ids.window = (await make('/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [ids.endpoint], starts_at: new Date(Date.now() + 3600_000).toISOString(), ends_at: new Date(Date.now() + 7200_000).toISOString() })).id;
  ids.key = (await make('/api/users/api-keys', { name: 'ci' })).id;
});

/** The path with real ids of workspace A (so a lenient router would have acted on real data). */
function filled(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => {
    if (path.startsWith('/users/endpoints') || path.startsWith('/graphs/')) return String(ids.endpoint);
    if (path.startsWith('/users/alert-methods')) return String(ids.method);
    if (path.startsWith('/users/maintenance-windows')) return String(ids.window);
    if (path.startsWith('/users/api-keys')) return String(ids.key);
    if (path.startsWith('/workspaces')) return name === 'id' ? String(A) : String(people.viewer.id);
    if (path.startsWith('/invitations')) return 'x'.repeat(30);
    return String(({ id: ids.page, reportId: ids.report, updateId: ids.update } as Record<string, number>)[name] ?? 1);
  });
}

/** A request that gives up on the body once the status is known (an event stream never ends). */
async function status(method: string, p: string, token: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const ac = new AbortController();
  const res = await fetch(`${h.cp.url}${p}`, {
    method, signal: ac.signal,
    headers: { authorization: `Bearer ${token}`, ...inA(), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    ac.abort();
    return { status: res.status, body: null };
  }
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/** Everything a request could change in A (read by its owner), and its audit log's size. */
async function snapshot() {
  const get = async (p: string) => (await h.call('GET', p, undefined, people.owner.token, inA())).body.data;
  const log = await h.call('GET', `/api/workspaces/${A}/audit-log?limit=1`, undefined, people.owner.token);
  return {
    endpoints: await get('/api/users/endpoints-with-uptime'), methods: await get('/api/users/alert-methods'), pages: await get('/api/users/status-pages'),
    page: await get(`/api/users/status-pages/${ids.page}`), reports: await get(`/api/users/status-pages/${ids.page}/reports`), windows: await get('/api/users/maintenance-windows'),
    keys: await get('/api/users/api-keys'), thresholds: await get(`/api/users/endpoints/${ids.endpoint}/alert-thresholds`),
    members: (await h.call('GET', `/api/workspaces/${A}/members`, undefined, people.owner.token)).body.data, workspace: (await h.call('GET', `/api/workspaces/${A}`, undefined, people.owner.token)).body.data,
    audit: log.headers.get('x-total-count'),
  };
}

/** Variants of a path that name the same route in a lenient router: upper-case letters, a trailing slash, both. */
function misspelled(path: string): string[] {
  const segs = path.split('/');
  const last = segs.map((s, i) => (/^[a-z]/.test(s) ? i : -1)).filter((i) => i >= 0).pop()!;
  const upper = segs.map((s, i) => (i === last ? s[0].toUpperCase() + s.slice(1) : s)).join('/');
  return [upper, `${path}/`, `${upper}/`, path.toUpperCase()];
}

describe('every API route declares what it needs where it is registered', () => {
  it('finds the routers\' routes (the walk sees the whole data surface)', () => {
    const keys = DATA_ROUTES.map((r) => `${r.method} ${r.path}`);
    for (const k of ['GET /users/alert-methods/:id/signing-secret', 'PUT /users/status-pages/:id', 'GET /users/events', 'GET /graphs/endpoint/:id', 'POST /billing/create-checkout-session', 'PUT /workspaces/:id/members/:userId']) {
      expect(keys).toContain(k);
    }
    expect(DATA_ROUTES.length).toBeGreaterThan(45);
  });

  it('each data route has a declared permission, and each mutation an audit action its log filter finds', () => {
    const undeclared = DATA_ROUTES.filter((r) => !r.declaration).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
    for (const r of DATA_ROUTES.filter((x) => MUTATION.has(x.method) && x.declaration!.role !== 'account')) {
      expect(r.declaration!.action, `${r.method} ${r.path}`).toMatch(/^[a-z_]+\.[a-z_]+$/);
    }
  });
});

describe.each(DATA_ROUTES.filter((r) => r.declaration && isRole(r.declaration.role)).map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_name, r) => {
  const needed = r.declaration!.role as Role;
  it(`answers 403 below ${needed} and lets ${needed} and above through, for its exact path`, async () => {
    // A missing id keeps an allowed request from changing anything: it gets past the gate, then 404s.
    const p = `/api${r.path.replace(/:\w+/g, '999999')}`;
    for (const role of ROLES) {
      const before = RANK[role] < RANK[needed] ? await snapshot() : null;
      const res = await status(r.method, p, people[role].token, MUTATION.has(r.method) ? {} : undefined);
      if (RANK[role] >= RANK[needed]) {
        expect(res.status, `${role} ${r.method} ${p}: ${JSON.stringify(res.body)}`).not.toBe(403);
      } else {
        expect(res.status, `${role} ${r.method} ${p}`).toBe(403);
        expect(res.body).toEqual({ success: false, error: MESSAGES.roleNotAllowed(role) });
        expect(await snapshot()).toEqual(before);
      }
    }
  });
});

describe.each(DATA_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s spelled otherwise', (_name, r) => {
  it('is no route for any role (404), changes nothing and logs nothing', async () => {
    const before = await snapshot();
    for (const variant of misspelled(filled(r.path))) {
      for (const role of ROLES) {
        const res = await status(r.method, `/api${variant}`, people[role].token, MUTATION.has(r.method) ? {} : undefined);
        expect(res.status, `${role} ${r.method} /api${variant}: ${JSON.stringify(res.body)}`).toBe(404);
        expect(res.body).toEqual({ success: false, error: expect.any(String) });
      }
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('the examples of the review', () => {
  it('a viewer reads no signing secret through a trailing slash; an editor changes no webhook or page through upper case', async () => {
    const before = await snapshot();
    expect((await status('GET', `/api/users/alert-methods/${ids.method}/signing-secret/`, people.viewer.token)).status).toBe(404);
    const hook = { platform: 'webhook', platform_config: { webhook_url: 'https://evil.example.net/' }, is_enabled: true };
    expect((await status('PUT', `/api/users/Alert-methods/${ids.method}`, people.editor.token, hook)).status).toBe(404);
    expect((await status('PUT', `/api/users/Status-Pages/${ids.page}`, people.editor.token, { slug: `spelled-${process.pid}`, title: 'Defaced' })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    // the exact spellings keep answering as declared
    expect((await status('GET', `/api/users/alert-methods/${ids.method}/signing-secret`, people.viewer.token)).status).toBe(403);
    expect((await status('GET', `/api/users/alert-methods/${ids.method}/signing-secret`, people.admin.token)).status).toBe(200);
  });
});
