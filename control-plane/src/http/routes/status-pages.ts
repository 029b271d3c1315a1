// Status pages: the owner API under /api/users (session or API key), the public JSON under
// /api/public/status, and the server-rendered page and Atom feed under /status (see statusPageSite).
import zlib from 'node:zlib';
import express, { Router, type Request, type Response } from 'express';
import {
  MaintenanceBody, SubscribeBody, SlugQuery, StatusPageBody, StatusReportBody, StatusReportEditBody, StatusUpdateBody, StatusUpdateEditBody,
} from '@upfleet/proto/schemas';
import type { MaintenanceService } from '../../maintenance';
import type { RateLimiter } from '../../services/rate-limiter';
import type { PublicView, StatusPageService } from '../../services/status-pages';
import type { StatusSubscribers } from '../../services/status-subscribers';
import type { PageRow } from '../../store/status-pages-repo';
import { parseId, parseInput } from '../../services/validation';
import { notFound } from '../../errors';
import { authOf, type SignIn } from '../middleware/auth';
import { mount, route, strictRouter } from '../route-table';
import { limitPerUser } from '../middleware/rate-limit';
import { clientKey } from '../../lib/net';
import { publicOrigin } from '../origin';
import { renderAtom, renderNotice, renderPasswordForm, renderStatusPage } from '../../status-page/render';

export const STATUS_PASSWORD_HEADER = 'x-status-password';

export function statusPageOwnerRoutes(deps: { statusPages: StatusPageService; maintenance: MaintenanceService; subscribers: StatusSubscribers; signIn: SignIn; limiter: RateLimiter }): Router {
  const r = strictRouter();
  const sp = deps.statusPages;
  // The workspace's: X-Workspace-Id or the personal one, within the member's role (declared per route).
  r.use(['/users/status-pages', '/users/maintenance-windows'], deps.signIn.userOrKey, deps.signIn.inWorkspace);
  // One allowance with endpoint changes (RATE_LIMIT_ENDPOINT_MUTATIONS_PER_MINUTE); the 429 says what it was.
  const mutation = limitPerUser(deps.limiter, 'endpoint_mutation', 'Too many changes to status pages and maintenance windows. Please wait a minute and try again.');
  const uid = (req: Request) => authOf(req).userId;
  const pageId = (raw: unknown) => parseId(raw, 'Status page not found');
  const reportId = (raw: unknown) => parseId(raw, 'Report not found');
  const updateId = (raw: unknown) => parseId(raw, 'Update not found');
  const windowId = (raw: unknown) => parseId(raw, 'Maintenance window not found');

  // Admins make, change and delete pages; editors post reports and their updates (the incident
  // communication); maintenance windows are editors'.
  return mount(r, [
    route('get', '/users/status-pages', 'viewer', async (req, res) => {
      res.json({ success: true, data: await sp.list(uid(req)) });
    }),
    route('get', '/users/status-pages/slug-available', 'viewer', async (req, res) => {
      const { slug } = parseInput(SlugQuery, req.query);
      const parsed = StatusPageBody.shape.slug.safeParse(slug);
      res.json({ success: true, data: { slug, available: parsed.success && (await sp.slugAvailable(parsed.data)), error: parsed.success ? null : parsed.error.issues[0]?.message ?? null } });
    }),
    route('post', '/users/status-pages', { role: 'admin', action: 'status_page.create' }, mutation, async (req, res) => {
      res.status(201).json({ success: true, data: await sp.create(uid(req), parseInput(StatusPageBody, req.body)) });
    }),
    route('get', '/users/status-pages/:id', 'viewer', async (req, res) => {
      res.json({ success: true, data: await sp.get(uid(req), pageId(req.params.id)) });
    }),
    route('put', '/users/status-pages/:id', { role: 'admin', action: 'status_page.update' }, mutation, async (req, res) => {
      res.json({ success: true, data: await sp.update(uid(req), pageId(req.params.id), parseInput(StatusPageBody, req.body)) });
    }),
    route('delete', '/users/status-pages/:id', { role: 'admin', action: 'status_page.delete' }, mutation, async (req, res) => {
      res.json({ success: true, data: await sp.remove(uid(req), pageId(req.params.id)) });
    }),
    route('post', '/users/status-pages/:id/verify-domain', { role: 'admin', action: 'status_page.verify_domain' }, mutation, async (req, res) => {
      res.json({ success: true, data: await sp.verifyDomain(uid(req), pageId(req.params.id)) });
    }),

    route('get', '/users/status-pages/:id/reports', 'viewer', async (req, res) => {
      res.json({ success: true, data: await sp.listReports(uid(req), pageId(req.params.id)) });
    }),
    route('post', '/users/status-pages/:id/reports', { role: 'editor', action: 'status_report.create' }, mutation, async (req, res) => {
      res.status(201).json({ success: true, data: await sp.createReport(uid(req), pageId(req.params.id), parseInput(StatusReportBody, req.body)) });
    }),
    route('put', '/users/status-pages/:id/reports/:reportId', { role: 'editor', action: 'status_report.update' }, mutation, async (req, res) => {
      const { title } = parseInput(StatusReportEditBody, req.body);
      res.json({ success: true, data: await sp.editReport(uid(req), pageId(req.params.id), reportId(req.params.reportId), title) });
    }),
    route('delete', '/users/status-pages/:id/reports/:reportId', { role: 'editor', action: 'status_report.delete' }, mutation, async (req, res) => {
      res.json({ success: true, data: await sp.removeReport(uid(req), pageId(req.params.id), reportId(req.params.reportId)) });
    }),
    route('post', '/users/status-pages/:id/reports/:reportId/updates', { role: 'editor', action: 'status_update.create' }, mutation, async (req, res) => {
      res.status(201).json({ success: true, data: await sp.addUpdate(uid(req), pageId(req.params.id), reportId(req.params.reportId), parseInput(StatusUpdateBody, req.body)) });
    }),
    route('put', '/users/status-pages/:id/reports/:reportId/updates/:updateId', { role: 'editor', action: 'status_update.update' }, mutation, async (req, res) => {
      const { message } = parseInput(StatusUpdateEditBody, req.body);
      res.json({ success: true, data: await sp.editUpdate(uid(req), pageId(req.params.id), reportId(req.params.reportId), updateId(req.params.updateId), message) });
    }),
    route('delete', '/users/status-pages/:id/reports/:reportId/updates/:updateId', { role: 'editor', action: 'status_update.delete' }, mutation, async (req, res) => {
      res.json({ success: true, data: await sp.removeUpdate(uid(req), pageId(req.params.id), reportId(req.params.reportId), updateId(req.params.updateId)) });
    }),

    route('get', '/users/status-pages/:id/subscribers', 'viewer', async (req, res) => {
      res.json({ success: true, data: await deps.subscribers.list(await sp.ownedRow(uid(req), pageId(req.params.id))) });
    }),
    route('delete', '/users/status-pages/:id/subscribers/:subscriberId', { role: 'admin', action: 'subscriber.delete' }, mutation, async (req, res) => {
      const page = await sp.ownedRow(uid(req), pageId(req.params.id));
      const id = parseId(req.params.subscriberId, 'Subscriber not found');
      if (!(await deps.subscribers.remove(page, id))) throw notFound('Subscriber not found');
      res.json({ success: true, data: { id } });
    }),

    route('get', '/users/maintenance-windows', 'viewer', async (req, res) => {
      res.json({ success: true, data: await deps.maintenance.listWindows(uid(req)) });
    }),
    route('post', '/users/maintenance-windows', { role: 'editor', action: 'maintenance.create' }, mutation, async (req, res) => {
      res.status(201).json({ success: true, data: await deps.maintenance.createWindow(uid(req), parseInput(MaintenanceBody, req.body)) });
    }),
    route('get', '/users/maintenance-windows/:id', 'viewer', async (req, res) => {
      res.json({ success: true, data: await deps.maintenance.getWindow(uid(req), windowId(req.params.id)) });
    }),
    route('put', '/users/maintenance-windows/:id', { role: 'editor', action: 'maintenance.update' }, mutation, async (req, res) => {
      res.json({ success: true, data: await deps.maintenance.updateWindow(uid(req), windowId(req.params.id), parseInput(MaintenanceBody, req.body)) });
    }),
    route('delete', '/users/maintenance-windows/:id', { role: 'editor', action: 'maintenance.delete' }, mutation, async (req, res) => {
      res.json({ success: true, data: await deps.maintenance.removeWindow(uid(req), windowId(req.params.id)) });
    }),
  ]);
}

// Gzipped forms of cached bodies, made once per rendering (a 50-component page is ~230 kB of JSON,
// ~500 kB of HTML; gzip cuts them ~15x) for the clients that accept gzip (every browser).
const gzipped = new WeakMap<Buffer, Buffer>();
const GZIP_MIN_BYTES = 1024;

/** Answers a public view with its cache headers, or 304 when the client holds the same entity. */
export function sendView(req: Request, res: Response, view: { etag: string }, type: string, body: () => string | Buffer, isPrivate = false): void {
  res.set('Cache-Control', isPrivate ? 'private, no-cache' : 'public, max-age=30');
  res.set('ETag', view.etag);
  res.type(type);
  res.vary('Accept-Encoding');
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim() === view.etag)) {
    res.status(304).end();
    return;
  }
  const b = body();
  if (Buffer.isBuffer(b) && b.length >= GZIP_MIN_BYTES && req.acceptsEncodings('gzip', 'identity') === 'gzip') {
    let z = gzipped.get(b);
    if (!z) gzipped.set(b, (z = zlib.gzipSync(b, { level: 1 })));
    res.set('Content-Encoding', 'gzip').send(z);
    return;
  }
  res.send(b);
}

/**
 * Opens a password-protected page: the page's password in the X-Status-Password header (JSON), or the
 * cookie the HTML form set. Wrong passwords count against a per-address, per-page limit.
 */
export async function unlocked(req: Request, sp: StatusPageService, limiter: RateLimiter, page: PageRow): Promise<boolean> {
  if (!page.password_hash) return true;
  if (sp.cookieOpens(page, cookie(req, sp.cookieName(page)))) return true;
  const given = req.headers[STATUS_PASSWORD_HEADER];
  if (typeof given !== 'string' || !given) return false;
  const attempt = await limiter.consume('status_password', `${clientKey(req.ip)}|${page.page_id}`);
  const ok = await sp.unlocks(page, given);
  if (ok) await limiter.undo(attempt);
  return ok;
}

export function cookie(req: Request, name: string): string | undefined {
  const raw = req.headers.cookie;
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

export function statusPagePublicApi(deps: { statusPages: StatusPageService; subscribers: StatusSubscribers; limiter: RateLimiter }): Router {
  const r = strictRouter();
  const sp = deps.statusPages;
  r.get('/public/status/:slug', async (req, res) => {
    const page = await sp.publicPage({ slug: String(req.params.slug) });
    if (!(await unlocked(req, sp, deps.limiter, page))) {
      res.status(401).json({ success: false, error: 'This status page is protected by a password', password_required: true });
      return;
    }
    const view: PublicView = await sp.view(page);
    sendView(req, res, view, 'json', () => view.body, page.password_hash !== null);
  });
  // The same answer whether or not the address was subscribed (only the limits answer otherwise).
  r.post('/public/status/:slug/subscribe', async (req, res) => {
    const page = await sp.publicPage({ slug: String(req.params.slug) });
    const { email } = parseInput(SubscribeBody, req.body);
    if (!(await unlocked(req, sp, deps.limiter, page))) {
      res.status(401).json({ success: false, error: 'This status page is protected by a password', password_required: true });
      return;
    }
    res.json({ success: true, data: await deps.subscribers.subscribe(page, email) });
  });
  return r;
}

/**
 * The public page (`GET /status/{slug}`, or `/` on a page's custom domain), its password form and
 * its Atom feed. Mounted on the app before the web app's static files.
 */
export function statusPageSite(deps: { statusPages: StatusPageService; subscribers: StatusSubscribers; limiter: RateLimiter; publicUrl?: string | null }): Router {
  const r = Router();
  const sp = deps.statusPages;
  // One rendering per cached view: warm requests send the same string.
  // (keyed by view and base path: a custom domain's page links from '/', the slug's from /status/{slug}).
  const html = new WeakMap<PublicView, Map<string, Buffer>>();
  const htmlOf = (view: PublicView, base: string) => {
    let byBase = html.get(view);
    if (!byBase) html.set(view, (byBase = new Map<string, Buffer>()));
    let b = byBase.get(base);
    if (b === undefined) {
      b = Buffer.from(renderStatusPage(view.data, { subscribeAction: `${base}/subscribe`, feedUrl: `${base}/feed.atom` }));
      byBase.set(base, b);
    }
    return b;
  };
  const hostOf = (req: Request) => (req.hostname ?? '').toLowerCase();
  const badHost = (res: Response) => res.status(400).json({ success: false, error: 'This request names no valid host.' });
  /** A custom domain's own origin: its verified name (never the request's Host), https when PUBLIC_URL is. */
  const domainOrigin = (req: Request, domain: string) => `${deps.publicUrl?.startsWith('https:') ? 'https' : req.protocol}://${domain}`;

  async function show(req: Request, res: Response, page: PageRow, base: string) {
    if (!(await unlocked(req, sp, deps.limiter, page))) {
      res.status(401).set('Cache-Control', 'no-store').type('html').send(renderPasswordForm(page.title, base || '/', false));
      return;
    }
    const view = await sp.view(page);
    sendView(req, res, { etag: view.etag.replace(/"$/, '-html"') }, 'html', () => htmlOf(view, base), page.password_hash !== null);
  }

  async function unlock(req: Request, res: Response, page: PageRow, base: string) {
    const body = req.body as { password?: unknown } | undefined;
    const password = typeof body?.password === 'string' ? body.password : '';
    const attempt = await deps.limiter.consume('status_password', `${clientKey(req.ip)}|${page.page_id}`);
    if (!password || !(await sp.unlocks(page, password))) {
      res.status(401).set('Cache-Control', 'no-store').type('html').send(renderPasswordForm(page.title, base || '/', true));
      return;
    }
    await deps.limiter.undo(attempt);
    res.cookie(sp.cookieName(page), sp.cookieValue(page), { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/', maxAge: 30 * 86_400_000 });
    res.redirect(303, base || '/');
  }

  const form = express.urlencoded({ extended: false, limit: '8kb' });
  const bySlug = (req: Request) => sp.publicPage({ slug: String(req.params.slug) });
  r.get('/status/:slug', async (req, res) => {
    const page = await bySlug(req);
    await show(req, res, page, `/status/${page.slug}`);
  });
  r.post('/status/:slug', form, async (req, res) => {
    const page = await bySlug(req);
    await unlock(req, res, page, `/status/${page.slug}`);
  });
  r.get('/status/:slug/feed.atom', async (req, res) => {
    const page = await bySlug(req);
    if (!(await unlocked(req, sp, deps.limiter, page))) {
      res.status(401).type('text').send('This status page is protected by a password');
      return;
    }
    const origin = publicOrigin(req, res, deps.publicUrl);
    if (!origin) return void badHost(res);
    const view = await sp.view(page);
    const pageUrl = `${origin}/status/${page.slug}`;
    sendView(req, res, { etag: view.etag.replace(/"$/, '-atom"') }, 'application/atom+xml', () => renderAtom(view.data, `${pageUrl}/feed.atom`, pageUrl), page.password_hash !== null);
  });
  const notice = (res: Response, page: PageRow, base: string, status: number, heading: string, text: string) =>
    res.status(status).set('Cache-Control', 'no-store').type('html').send(renderNotice(page.published === 1 ? page.title : null, heading, text, base || '/'));
  async function subscribe(req: Request, res: Response, page: PageRow, base: string) {
    if (!(await unlocked(req, sp, deps.limiter, page))) return void res.redirect(303, base || '/');
    const { email } = parseInput(SubscribeBody, req.body);
    notice(res, page, base, 202, 'Check your inbox', (await deps.subscribers.subscribe(page, email)).message);
  }
  const token = (req: Request) => (typeof req.query.token === 'string' ? req.query.token : '');
  r.post('/status/:slug/subscribe', form, async (req, res) => {
    const page = await bySlug(req);
    await subscribe(req, res, page, `/status/${page.slug}`);
  });
  r.get('/status/:slug/confirm', async (req, res) => {
    const page = await sp.subscriptionPage(String(req.params.slug));
    const base = `/status/${page.slug}`;
    if (await deps.subscribers.confirm(page, token(req))) notice(res, page, base, 200, 'Subscription confirmed', `You will get an email when ${page.published === 1 ? page.title : 'this status page'} posts an incident or maintenance.`);
    else notice(res, page, base, 400, 'This link is not valid', 'The confirmation link is unknown or older than 48 hours. Please subscribe again.');
  });
  // One click: the link in each mail (GET) and the List-Unsubscribe-Post form (POST, RFC 8058).
  const unsubscribe = async (req: Request, res: Response) => {
    const page = await sp.subscriptionPage(String(req.params.slug));
    const base = `/status/${page.slug}`;
    if (await deps.subscribers.unsubscribe(page, token(req))) notice(res, page, base, 200, 'Unsubscribed', 'You will get no more email from this status page.');
    else notice(res, page, base, 400, 'This link is not valid', 'The unsubscribe link is not valid.');
  };
  r.get('/status/:slug/unsubscribe', unsubscribe);
  r.post('/status/:slug/unsubscribe', form, unsubscribe);

  // A custom domain: its root is the page (other paths fall through to the app).
  const byHost = (req: Request) => sp.customDomainPage(hostOf(req));
  r.get('/', async (req, res, next) => {
    const page = await byHost(req);
    if (!page) return next();
    await show(req, res, page, '');
  });
  r.post('/', form, async (req, res, next) => {
    const page = await byHost(req);
    if (!page) return next();
    await unlock(req, res, page, '');
  });
  r.post('/subscribe', form, async (req, res, next) => {
    const page = await byHost(req);
    if (!page) return next();
    await subscribe(req, res, page, '');
  });
  r.get('/feed.atom', async (req, res, next) => {
    const page = await byHost(req);
    if (!page) return next();
    if (!(await unlocked(req, sp, deps.limiter, page))) {
      res.status(401).type('text').send('This status page is protected by a password');
      return;
    }
    const view = await sp.view(page);
    const pageUrl = domainOrigin(req, page.custom_domain ?? '');
    sendView(req, res, { etag: view.etag.replace(/"$/, '-atom"') }, 'application/atom+xml', () => renderAtom(view.data, `${pageUrl}/feed.atom`, pageUrl), page.password_hash !== null);
  });
  return r;
}
