// The audit log (issue 23): every mutation that succeeds in a workspace is one entry with its time,
// member, action (`endpoint.create`, `member.role_change`, …), target id, a short summary of what
// changed (never secrets) and the client address. Recorded here, once, for every route, after the
// answer: a refused or failed request changes nothing and is not logged.
import type { Request, RequestHandler, Response } from 'express';
import type { WorkspacesRepo } from '../../store/workspaces-repo';
import { AUDIT_RETENTION_MS } from '../../services/workspaces';
import { authOf } from './auth';

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Named actions by `METHOD /path` with ids as `:id`; anything else gets `<resource>.<verb>`. */
const ACTIONS: Record<string, string> = {
  'POST /users/endpoints': 'endpoint.create',
  'PUT /users/endpoints/:id': 'endpoint.update',
  'PATCH /users/endpoints/:id/toggle': 'endpoint.toggle',
  'DELETE /users/endpoints/:id': 'endpoint.delete',
  'PUT /users/endpoints/:id/alert-thresholds': 'thresholds.update',
  'POST /users/alert-methods': 'alert_method.create',
  'PUT /users/alert-methods/:id': 'alert_method.update',
  'DELETE /users/alert-methods/:id': 'alert_method.delete',
  'POST /users/alert-methods/:id/test': 'alert_method.test',
  'POST /users/api-keys': 'api_key.create',
  'DELETE /users/api-keys/:id': 'api_key.delete',
  'POST /users/status-pages': 'status_page.create',
  'PUT /users/status-pages/:id': 'status_page.update',
  'DELETE /users/status-pages/:id': 'status_page.delete',
  'POST /users/status-pages/:id/reports': 'status_report.create',
  'PUT /users/status-pages/:id/reports/:id': 'status_report.update',
  'DELETE /users/status-pages/:id/reports/:id': 'status_report.delete',
  'POST /users/status-pages/:id/reports/:id/updates': 'status_update.create',
  'PUT /users/status-pages/:id/reports/:id/updates/:id': 'status_update.update',
  'DELETE /users/status-pages/:id/reports/:id/updates/:id': 'status_update.delete',
  'DELETE /users/status-pages/:id/subscribers/:id': 'subscriber.delete',
  'POST /users/maintenance-windows': 'maintenance.create',
  'PUT /users/maintenance-windows/:id': 'maintenance.update',
  'DELETE /users/maintenance-windows/:id': 'maintenance.delete',
  'POST /billing/create-checkout-session': 'billing.checkout',
  'POST /billing/notices/:id/dismiss': 'billing.notice_dismiss',
  'POST /workspaces': 'workspace.create',
  'PUT /workspaces/:id': 'workspace.rename',
  'DELETE /workspaces/:id': 'workspace.delete',
  'POST /workspaces/:id/invitations': 'invitation.create',
  'DELETE /workspaces/:id/invitations/:id': 'invitation.revoke',
  'PUT /workspaces/:id/members/:id': 'member.role_change',
  'DELETE /workspaces/:id/members/:id': 'member.remove',
  'POST /invitations/:token/accept': 'member.join',
};

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

export function actionFor(method: string, path: string): string {
  const { pattern } = normalise(path);
  const named = ACTIONS[`${method} ${pattern}`];
  if (named) return named;
  const segs = pattern.split('/').filter((s) => s && s !== ':id' && s !== 'users');
  const resource = (segs[0] ?? 'unknown').replace(/-/g, '_').replace(/s$/, '');
  const verb = segs.length > 1 ? segs[segs.length - 1].replace(/-/g, '_') : ({ POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' } as Record<string, string>)[method];
  return `${resource}.${verb}`;
}

function show(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (typeof v === 'object') return '{…}';
  const s = String(v);
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

export function auditMutations(deps: { workspaces: WorkspacesRepo; memberName: (userId: number) => string; now?: () => number }): RequestHandler {
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
      try {
        record(req, answer);
      } catch {
        // the log never fails a request that succeeded
      }
    });
    next();
  };

  function record(req: Request, answer: unknown) {
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
    deps.workspaces.insertAudit({
      workspaceId, at, memberId, memberName: deps.memberName(memberId), action: actionFor(req.method, path), targetId: target,
      summary: summarise(req.body, extra), clientAddress: req.ip ?? '',
    });
    if (at - lastPurge > 3600_000) {
      lastPurge = at;
      deps.workspaces.purgeAudit(at - AUDIT_RETENTION_MS); // kept one year
    }
  }
}
