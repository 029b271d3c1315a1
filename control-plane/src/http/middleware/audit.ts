// The audit log: every mutation that succeeds in a workspace is one entry with its time, member,
// action (`endpoint.create`, `member.role_change`, …: the matched route declares it, route-table.ts),
// target id, a short summary of what changed (never secrets) and the client address. Recorded here, once, for every route, after the
// answer: a refused or failed request changes nothing and is not logged.
import type { Request, RequestHandler, Response } from 'express';
import type { WorkspacesRepo } from '../../store/workspaces-repo';
import { AUDIT_RETENTION_MS } from '../../services/workspaces';
import { authOf } from './auth';
import { ROUTE_ACTION } from '../route-table';

/** The action the matched route declares (route-table.ts). */
const routeAction = (res: Response): string | undefined => (typeof res.locals[ROUTE_ACTION] === 'string' ? res.locals[ROUTE_ACTION] : undefined);

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Body fields never written to the log, at any depth (configs hold webhook URLs and tokens). */
const SECRET = /password|secret|token|credential|^(key|api_key|config|code|two_factor_code|phone|webhook_url|authorization)$/i;

function normalise(path: string): { pattern: string; ids: string[] } {
  const ids: string[] = [];
  const parts = path.split('/').map((seg, i, all) => {
    if (/^\d+$/.test(seg)) {
      ids.push(seg);
      return ':id';
    }
    if (all[i - 1] === 'invitations' && all[i + 1] === 'accept') return ':token';
    return seg;
  });
  return { pattern: parts.join('/'), ids };
}

/** The action of a mutation whose route declares none: `<resource>.<verb>` from its path. */
export function actionFor(method: string, path: string): string {
  const { pattern } = normalise(path);
  const segs = pattern.split('/').filter((s) => s && s !== ':id' && s !== 'users');
  const resource = (segs[0] ?? 'unknown').replace(/-/g, '_').replace(/s$/, '');
  const verb = segs.length > 1 ? segs[segs.length - 1].replace(/-/g, '_') : ({ POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' } as Record<string, string>)[method];
  return `${resource}.${verb}`.toLowerCase();
}

function show(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (typeof v === 'object') return '{…}';
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? v.toString() : typeof v;
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/** `name=API, url=https://…, regions=[EU-Germany]`: the body's plain fields, secrets left out. */
export function summarise(body: unknown, extra: Record<string, unknown> = {}): string {
  const fields = { ...(body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}), ...extra };
  const out = Object.entries(fields)
    .filter(([k]) => !SECRET.test(k))
    .map(([k, v]) => `${k}=${show(v)}`)
    .join(', ');
  return out.length > 300 ? `${out.slice(0, 297)}…` : out;
}

export function auditMutations(deps: { workspaces: WorkspacesRepo; memberName: (userId: number) => string | Promise<string>; now?: () => number }): RequestHandler {
  const now = deps.now ?? Date.now;
  let lastPurge = 0;
  return (req: Request, res: Response, next) => {
    if (!MUTATIONS.has(req.method) || req.query.dry_run === '1' || req.query.dry_run === 'true') return next();
    let answer: unknown;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      answer = body;
      return json(body);
    };
    res.on('finish', () => {
      if (res.statusCode >= 400) return;
      // the log never fails a request that succeeded
      record(req, res, answer).catch(() => undefined);
    });
    next();
  };

  async function record(req: Request, res: Response, answer: unknown): Promise<void> {
    const path = req.originalUrl.split('?')[0].replace(/^\/api/, '');
    const { ids } = normalise(path);
    const data = (answer as { data?: Record<string, unknown> } | undefined)?.data ?? {};
    const a = authOf(req) as ReturnType<typeof authOf> | undefined;
    if (!a) return;
    let workspaceId = a.workspaceId;
    let target: string | null = ids[ids.length - 1] ?? null;
    if (path.startsWith('/workspaces/')) workspaceId = Number(ids[0]);
    if (path === '/workspaces' || path.startsWith('/invitations/')) workspaceId = Number(data.id);
    if (path.startsWith('/workspaces/') && ids.length === 1) target = ids[0];
    else if (path.startsWith('/workspaces/')) target = ids[1] ?? null;
    if (target === null && data && (data.id ?? data.url_id ?? data.alert_method_id) !== undefined) target = String(data.id ?? data.url_id ?? data.alert_method_id);
    if (!workspaceId || !Number.isSafeInteger(workspaceId)) return;
    if (req.method === 'DELETE' && path === `/workspaces/${workspaceId}`) return; // its log goes with it
    const memberId = a.memberId ?? a.userId;
    const extra: Record<string, unknown> = {};
    if (typeof data.previous_role === 'string') extra.previous_role = data.previous_role;
    if (a.apiKeyId !== undefined) extra.via = `API key #${a.apiKeyId}`;
    const at = now();
    const memberName = await deps.memberName(memberId);
    await deps.workspaces.insertAudit({
      workspaceId, at, memberId, memberName, action: routeAction(res) ?? actionFor(req.method, path), targetId: target,
      summary: summarise(req.body, extra), clientAddress: req.ip ?? '',
    });
    if (at - lastPurge > 3600_000) {
      lastPurge = at;
      await deps.workspaces.purgeAudit(at - AUDIT_RETENTION_MS); // kept one year
    }
  }
}
