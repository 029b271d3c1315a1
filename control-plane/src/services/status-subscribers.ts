// Status-page subscribers: double opt-in (a token link valid 48 h), mail on a new report,
// each update, and maintenance scheduled / started / completed, to confirmed addresses only. Every
// mail carries a one-click unsubscribe link and List-Unsubscribe (+ List-Unsubscribe-Post, RFC 8058).
// Mail goes through a durable outbox in the database (status_mail_outbox): retried with backoff, picked up
// again after a restart, never lost; an idempotency key per mail keeps a retry from sending twice.
import crypto from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import type { MaintenanceWindow, StatusReport } from '@upfleet/proto/rest';
import { badRequest } from '../errors';
import { safeEqual, sha256 } from '../lib/crypto';
import type { Logger } from '../logger';
import type { StatusMailRepo } from '../store/status-mail-repo';
import type { PageRow, StatusPagesRepo } from '../store/status-pages-repo';
import type { RateLimiter } from './rate-limiter';

export const CONFIRM_TTL_MS = 48 * 3600_000;
export const SUBSCRIBE_ANSWER = 'If this address can subscribe, a confirmation email is on its way. Please click its link within 48 hours.';
const MAX_ATTEMPTS = 8;
const backoffMs = (attempts: number) => Math.min(3600_000, 5_000 * 2 ** attempts);

/**
 * The one mailbox the mailer would send to, lower-cased; 400 unless `email` is exactly that (no
 * group, display name, comment or list), so each variant of an address is the same subscriber and
 * the same rate-limit key.
 */
export function plainMailbox(email: string): string {
  const parsed = addressparser(email, { flatten: true });
  const only = parsed.length === 1 ? parsed[0] : null;
  if (!only || only.name !== '' || only.address !== email.trim()) throw badRequest('Please enter a valid email address');
  return only.address.toLowerCase();
}

export function createStatusSubscribers(deps: {
  mail: StatusMailRepo;
  pages: StatusPagesRepo;
  limiter: RateLimiter;
  smtp: { url: string | null; from: string | null };
  /** The site's origin for links in mail (PUBLIC_URL, else where the server listens). */
  publicUrl: () => string;
  /** Signs unsubscribe tokens. */
  key: Buffer;
  logger: Logger;
  now?: () => number;
  pollMs?: number;
}) {
  const { mail, pages } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'status-mail' });
  const origin = () => deps.publicUrl().replace(/\/+$/, '');
  const pageUrl = (p: PageRow) => `${origin()}/status/${p.slug}`;
  const sign = (id: number) => crypto.createHmac('sha256', deps.key).update(`unsubscribe:${id}`).digest('base64url').slice(0, 32);
  const unsubscribeUrl = (p: PageRow, subscriberId: number) => `${pageUrl(p)}/unsubscribe?token=${subscriberId}.${sign(subscriberId)}`;

  let transport: Transporter | null = null;
  let timer: NodeJS.Timeout | null = null;
  let tickTimer: NodeJS.Timeout | null = null;
  let running = false;
  let sending: Promise<void> | null = null;
  let ticking: Promise<void> | null = null;

  async function toSubscribers(p: PageRow, key: string, subject: string, text: string): Promise<number> {
    let n = 0;
    for (const s of await mail.confirmedOf(p.page_id)) {
      const unsub = unsubscribeUrl(p, s.subscriber_id);
      const body = `${text}\n\nView the status page: ${pageUrl(p)}\n\nYou get this mail because you subscribed to ${p.title} status updates.\nUnsubscribe with one click: ${unsub}\n`;
      if (await mail.enqueue({ pageId: p.page_id, to: s.email, subject, body, unsubscribeUrl: unsub, key: `${key}-s${s.subscriber_id}` }, now())) n++;
    }
    if (n > 0) wake();
    return n;
  }

  async function deliver(m: { to_email: string; subject: string; body: string; unsubscribe_url: string | null; idempotency_key: string }): Promise<{ ok: true } | { ok: false; final: boolean; error: string }> {
    if (!deps.smtp.url || !deps.smtp.from) return { ok: false, final: false, error: 'Email is not configured on this server' };
    transport ??= nodemailer.createTransport(deps.smtp.url, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
    try {
      await transport.sendMail({
        from: deps.smtp.from,
        to: m.to_email,
        subject: m.subject,
        text: m.body,
        messageId: `<${m.idempotency_key}@upfleet>`,
        headers: {
          'X-Upfleet-Idempotency-Key': m.idempotency_key,
          ...(m.unsubscribe_url ? { 'List-Unsubscribe': `<${m.unsubscribe_url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {}),
        },
      });
      return { ok: true };
    } catch (err) {
      const e = err as Error & { responseCode?: number; response?: string };
      return { ok: false, final: typeof e.responseCode === 'number' && e.responseCode >= 500, error: `SMTP: ${e.response ?? e.message}` };
    }
  }

  /** Sends what is due; one pass at a time. */
  async function pass(): Promise<void> {
    try {
      for (;;) {
        const due = await mail.due(now(), 50);
        if (due.length === 0) break;
        for (const m of due) {
          const r = await deliver(m);
          if (r.ok) await mail.markSent(m.mail_id, now());
          else if (r.final || m.attempts + 1 >= MAX_ATTEMPTS) {
            await mail.markFailed(m.mail_id, r.error);
            log.warn({ mailId: m.mail_id, error: r.error }, 'status mail failed for good');
          } else await mail.markRetry(m.mail_id, now() + backoffMs(m.attempts), r.error);
        }
      }
    } catch (err) {
      log.error({ err: (err as Error).message }, 'status mail pass failed');
    }
  }

  function drain(): Promise<void> {
    if (sending) return sending;
    // The guard is cleared in a callback that runs after the assignment: clearing it inside the
    // pass could leave a settled promise behind that every later drain returns without sending.
    const current = pass().finally(() => {
      if (sending === current) sending = null;
      void schedule();
    });
    sending = current;
    return current;
  }

  async function schedule(): Promise<void> {
    if (!running) return;
    let next: number | null = null;
    try {
      next = await mail.nextDue();
    } catch (err) {
      log.error({ err: (err as Error).message }, 'status mail not looked for');
    }
    if (!running) return;
    if (timer) clearTimeout(timer);
    const wait = next === null ? (deps.pollMs ?? 30_000) : Math.max(0, Math.min(next - now(), deps.pollMs ?? 30_000));
    timer = setTimeout(() => void drain(), wait);
    timer.unref();
  }

  function wake() {
    if (running) void Promise.resolve().then(drain);
  }

  const fmt = (iso: string) => `${iso.replace('T', ' ').slice(0, 16)} UTC`;

  /** Maintenance started / completed notices, once per window and event, for pages showing its endpoints. */
  async function maintenanceTick(): Promise<void> {
    const t = now();
    for (const [windowId, urlIds, startsAt, endsAt, title, message] of await pages.recentWindows(t - 3600_000)) {
      const event = t >= endsAt ? 'completed' : t >= startsAt ? 'started' : null;
      if (!event || !(await mail.notice(windowId, event, t))) continue;
      if (event === 'completed') await mail.notice(windowId, 'started', t);
      await notifyMaintenance({ id: windowId, title, message, starts_at: new Date(startsAt).toISOString(), ends_at: new Date(endsAt).toISOString() }, urlIds, event);
    }
  }

  async function notifyMaintenance(w: Pick<MaintenanceWindow, 'id' | 'title' | 'message' | 'starts_at' | 'ends_at'>, urlIds: number[], event: 'scheduled' | 'started' | 'completed'): Promise<void> {
    const seen = new Set<number>();
    for (const urlId of urlIds) {
      for (const p of await pages.pagesShowingEndpoint(urlId)) {
        if (seen.has(p.page_id) || p.published !== 1) continue;
        seen.add(p.page_id);
        const verb = event === 'scheduled' ? 'Scheduled maintenance' : event === 'started' ? 'Maintenance started' : 'Maintenance completed';
        await toSubscribers(p, `maint-${w.id}-${event}`, `[${p.title}] ${verb}: ${w.title}`, `${verb}: ${w.title}\n${fmt(w.starts_at)} – ${fmt(w.ends_at)}${w.message ? `\n\n${w.message}` : ''}`);
      }
    }
  }

  return {
    /**
     * Subscribes `email` to a published page: the same answer whether or not it was subscribed. A new
     * or unconfirmed address gets a confirmation mail; a confirmed one gets nothing.
     */
    async subscribe(p: PageRow, address: string): Promise<{ message: string }> {
      const email = plainMailbox(address);
      await deps.limiter.consume('subscribe_email', email);
      await deps.limiter.consume('subscribe_page', String(p.page_id));
      const t = now();
      const token = crypto.randomBytes(24).toString('base64url');
      // Inserted unless there (UNIQUE (page_id, email)): of two subscribes at once, one inserts and one renews.
      const inserted = await mail.insert(p.page_id, email, sha256(token), t + CONFIRM_TTL_MS, t);
      let id: number;
      if (inserted !== undefined) id = inserted;
      else {
        const existing = await mail.subscriber(p.page_id, email);
        if (!existing || !(await mail.renew(existing.subscriber_id, sha256(token), t + CONFIRM_TTL_MS))) return { message: SUBSCRIBE_ANSWER };
        id = existing.subscriber_id;
      }
      await mail.enqueue({
        pageId: p.page_id, to: email, key: `confirm-${id}-${sha256(token).slice(0, 16)}`, unsubscribeUrl: null,
        subject: `[${p.title}] Please confirm your subscription`,
        body: `Please confirm that you want status updates from ${p.title}:\n${pageUrl(p)}/confirm?token=${token}\n\nThe link is valid for 48 hours. If you did not ask for this, ignore this mail: nothing will be sent to you.\n`,
      }, t);
      wake();
      return { message: SUBSCRIBE_ANSWER };
    },
    /** Confirms a token of this page; false when unknown or expired. */
    async confirm(p: PageRow, token: string): Promise<boolean> {
      const s = await mail.byToken(sha256(token));
      if (!s || s.page_id !== p.page_id) return false;
      if (s.confirmed_at !== null) return true;
      if (s.expires_at < now()) return false;
      // Two clicks at once: the second finds it confirmed, which is a success too.
      if (await mail.confirm(s.subscriber_id, now())) return true;
      const again = await mail.byId(s.subscriber_id);
      return again !== undefined && again.confirmed_at !== null;
    },
    /** One-click unsubscribe: `<id>.<signature>`; true also when already gone (the link keeps working). */
    async unsubscribe(p: PageRow, token: string): Promise<boolean> {
      const m = /^(\d{1,15})\.([A-Za-z0-9_-]{32})$/.exec(token);
      if (!m || !safeEqual(m[2], sign(Number(m[1])))) return false;
      await mail.remove(p.page_id, Number(m[1]));
      return true;
    },
    /** Owner side (the page is already the caller's). */
    list: async (p: PageRow) => {
      const rows = await mail.ofPage(p.page_id);
      return {
        count: rows.filter((r) => r.confirmed_at !== null).length,
        subscribers: rows.map((r) => ({
          id: r.subscriber_id, email: r.email, confirmed: r.confirmed_at !== null,
          created_at: new Date(r.created_at).toISOString(), confirmed_at: r.confirmed_at === null ? null : new Date(r.confirmed_at).toISOString(),
        })),
      };
    },
    remove(p: PageRow, subscriberId: number): Promise<boolean> {
      return mail.remove(p.page_id, subscriberId);
    },
    /** A report opened or got an update: one mail per confirmed subscriber. */
    async reportChanged(p: PageRow, r: StatusReport, kind: 'opened' | 'updated'): Promise<void> {
      if (p.published !== 1) return;
      const u = r.updates[0];
      if (!u) return;
      const label = kind === 'opened' ? 'New incident' : u.status === 'resolved' ? 'Resolved' : 'Update';
      await toSubscribers(p, `report-${r.report_id}-u${u.update_id}`, `[${p.title}] ${label}: ${r.title}`, `${r.title}\nStatus: ${u.status} (${fmt(u.created_at)})\n\n${u.message}`);
    },
    /** A window was scheduled (to start later): subscribers of pages showing its endpoints hear of it. */
    async windowScheduled(w: MaintenanceWindow): Promise<void> {
      if (w.state === 'scheduled' && (await mail.notice(w.id, 'scheduled', now()))) await notifyMaintenance(w, w.endpoint_ids, 'scheduled');
    },
    maintenanceTick,
    /** Sends what is due now (tests). */
    flush: () => drain(),
    start(tickMs = 15_000) {
      running = true;
      void schedule();
      tickTimer = setInterval(() => {
        // One tick at a time: a slow database must not stack them up.
        if (ticking) return;
        ticking = (async () => {
          try {
            await maintenanceTick();
            await mail.pruneUnconfirmed(now() - 7 * 86_400_000);
          } catch (err) {
            log.error({ err: (err as Error).message }, 'maintenance notices failed');
          }
        })().finally(() => { ticking = null; });
      }, tickMs);
      tickTimer.unref();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      if (tickTimer) clearInterval(tickTimer);
      await ticking;
      await sending;
      transport?.close();
    },
  };
}
export type StatusSubscribers = ReturnType<typeof createStatusSubscribers>;
