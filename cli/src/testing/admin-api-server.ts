// A real HTTP server on 127.0.0.1, port 0, speaking the admin API contract the control plane
// implements (/api/admin/*), so CLI tests exercise real sockets, headers and JSON.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminRegion, AdminUser, AdminWorkspace, AgentInfo, AgentTokenInfo, ClusterStatus, Package } from '../api/types';

export interface AdminApiState {
  users: AdminUser[];
  workspaces?: AdminWorkspace[];
  packages: Package[];
  regions: AdminRegion[];
  tokens: Array<AgentTokenInfo & { token: string }>;
  /** when set, created tokens carry it as the real control plane's do (`<secret>.<sha256 of its CA>`) */
  caFingerprint?: string;
  /** the server's PUBLIC_URL, sent with a created token */
  publicUrl?: string | null;
  agents: AgentInfo[];
  cluster?: ClusterStatus;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface AdminApiServer {
  url: string;
  state: AdminApiState;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export function freePackage(overrides: Partial<Package> = {}): Package {
  return {
    package_id: 1,
    package_name: 'Free',
    price: 0,
    currency: 'EUR',
    description: 'Free plan',
    max_endpoints: 10,
    max_regions: 1,
    max_members: 1,
    check_frequency_seconds: 300,
    retention_days: 30,
    ssl_monitoring: false,
    advanced_alerts: false,
    api_access: false,
    multi_region: false,
    ping_host: false,
    cert_expiry: false,
    response_code: true,
    response_time: false,
    stripe_price_id: '',
    max_status_pages: 1,
    custom_domains: false,
    monitor_kinds: ['http', 'heartbeat'],
    browser_checks: 0,
    ...overrides,
  };
}

export async function startAdminApiServer(adminToken: string, state: AdminApiState): Promise<AdminApiServer> {
  const requests: RecordedRequest[] = [];
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body: unknown = raw ? JSON.parse(raw) : undefined;
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization, body });

    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const ok = (data: unknown, status = 200) => send(status, { success: true, data });
    const fail = (status: number, error: string) => send(status, { success: false, error });

    if (!url.pathname.startsWith('/api/admin/')) {
      // Like express's default 404: HTML, not the API's JSON.
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(`<pre>Cannot ${req.method} ${url.pathname}</pre>`);
      return;
    }
    if (req.headers.authorization !== `Bearer ${adminToken}`) return fail(401, 'Invalid admin token');

    const route = `${req.method} ${url.pathname}`;
    const input = (body ?? {}) as Record<string, unknown>;
    switch (route) {
      case 'GET /api/admin/users':
        return ok(state.users);
      case 'GET /api/admin/workspaces':
        return ok(state.workspaces ?? []);
      case 'POST /api/admin/users/set-package': {
        const user = state.users.find((u) => u.email === input.email);
        if (!user) return fail(404, 'User not found');
        const pkg = state.packages.find((p) => p.package_name === input.package);
        if (!pkg) return fail(400, `Unknown package '${String(input.package)}'`);
        user.package_name = pkg.package_name;
        return ok({ id: user.id, email: user.email, package_name: user.package_name });
      }
      case 'GET /api/admin/packages':
        return ok(state.packages);
      case 'POST /api/admin/packages/set-price': {
        const pkg = state.packages.find((p) => p.package_name.toLowerCase() === String(input.package).toLowerCase());
        if (!pkg) return fail(404, `No package named ${String(input.package)}; see 'upfleet package list'`);
        if (!/^price_[A-Za-z0-9_]+$/.test(String(input.stripe_price_id))) return fail(400, 'stripe_price_id must look like price_123');
        if (pkg.price <= 0) return fail(400, `${pkg.package_name} is free: it needs no Stripe price`);
        pkg.stripe_price_id = String(input.stripe_price_id);
        return ok(pkg);
      }
      case 'POST /api/admin/packages/sync-stripe': {
        // Like the control plane: a Product and a monthly Price for each paid plan without one.
        return ok(state.packages.map((p) => {
          if (p.price <= 0) return { package_name: p.package_name, action: 'skipped', stripe_price_id: '', lookup_key: null, note: 'free plan' };
          if (p.stripe_price_id) return { package_name: p.package_name, action: 'kept', stripe_price_id: p.stripe_price_id, lookup_key: null, note: 'already has a price' };
          const key = `upfleet_${p.package_name.toLowerCase()}`;
          p.stripe_price_id = `price_${key}`;
          return { package_name: p.package_name, action: 'created', stripe_price_id: p.stripe_price_id, lookup_key: key, note: `prod_${key}, ${Math.round(p.price * 100)} ${p.currency.toLowerCase()}/month` };
        }));
      }
      case 'GET /api/admin/regions':
        return ok(state.regions);
      case 'POST /api/admin/regions': {
        if (state.regions.some((r) => r.region === input.region && r.city === input.city)) {
          return fail(409, 'Region already exists');
        }
        const region: AdminRegion = {
          region_id: state.regions.length + 1,
          region: String(input.region),
          city: String(input.city),
          primary_region: input.primary === true,
          agents_live: 0,
        };
        state.regions.push(region);
        const { agents_live: _live, ...plain } = region;
        return ok(plain, 201);
      }
      case 'POST /api/admin/agent-tokens': {
        const region = String(input.region);
        if (!state.regions.some((r) => `${r.region}-${r.city}` === region)) return fail(400, `Unknown region '${region}'`);
        // as the server: 24 h and single-use unless asked; null means never / any number
        const seconds = input.expires_in_seconds === null ? null : typeof input.expires_in_seconds === 'number' ? input.expires_in_seconds : 86_400;
        const n = state.tokens.length + 1;
        const token = {
          token_id: `tok_${n}`,
          token: `upf_boot_secret_${n}${state.caFingerprint ? `.${state.caFingerprint}` : ''}`,
          region,
          created_at: new Date().toISOString(),
          expires_at: seconds === null ? null : new Date(Date.now() + seconds * 1000).toISOString(),
          revoked_at: null,
          used_count: 0,
        };
        state.tokens.push(token);
        const maxUses = input.max_uses === undefined ? undefined : input.max_uses;
        return ok({ token_id: token.token_id, token: token.token, region, expires_at: token.expires_at, ...(maxUses === undefined ? {} : { max_uses: maxUses }), ...(state.publicUrl === undefined ? {} : { public_url: state.publicUrl }) }, 201);
      }
      case 'GET /api/admin/agent-tokens':
        return ok(state.tokens.map(({ token: _secret, ...info }) => info));
      case 'GET /api/admin/agents':
        return ok(state.agents);
      case 'GET /api/admin/cluster':
        return ok(state.cluster ?? { database: 'sqlite', lease: null, processes: [] });
    }
    const revoke = /^DELETE \/api\/admin\/agent-tokens\/([^/]+)$/.exec(route);
    if (revoke) {
      const token = state.tokens.find((t) => t.token_id === decodeURIComponent(revoke[1]));
      if (!token) return fail(404, 'Agent token not found');
      token.revoked_at ??= new Date().toISOString();
      return ok({ token_id: token.token_id, revoked_at: token.revoked_at });
    }
    return fail(404, 'Not found');
  };
  const server = http.createServer((req, res) => void handle(req, res));

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
