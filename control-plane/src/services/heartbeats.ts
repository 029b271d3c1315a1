// Heartbeat (cron job) monitors: a job pings `{PUBLIC_URL}/ping/{token}`; the control
// plane knows when the next ping is due (a period, or a cron in a time zone) and marks the monitor
// late after that, down after the grace (or at once on a failure ping). Down opens the endpoint's
// `down` incident through alerting (no confirmation count, no quorum: one source); the next success
// resolves it. Every ping is a result in ClickHouse (region `push`, kind tcp: ok, total_ms = run
// time, error = failure reason) and a row of the ping log (last 100). The state lives in SQLite
// (heartbeats: last ping, job start, the deadline already counted as missed), so a restart finds a
// miss that happened while it was away, and never counts the same miss twice.
import crypto from 'node:crypto';
import { nextDue, type HeartbeatSchedule } from '@upfleet/proto/heartbeat';
import type { CheckResult } from '@upfleet/proto';
import type { EndpointCheck } from '@upfleet/proto/rest';
import { LIMITS_HEARTBEAT } from '@upfleet/proto/assertions';
import { buildCheckId, DEFAULT_RETENTION_DAYS } from '../checks';
import { ENDPOINT_KIND_TABLE } from '@upfleet/proto/check-kinds';
import type { SecretBox } from '../lib/crypto';
import type { Logger } from '../logger';
import type { Db } from '../store/db';

export const PUSH_REGION = 'push';
/** The check kind a ping is stored as (graphs, uptime and live state read it like that kind's results). */
const PUSHED_AS = ENDPOINT_KIND_TABLE.heartbeat.pushedAs!;
export const PING_LOG_SIZE = 100;
export const HEARTBEAT_STATES = ['new', 'up', 'late', 'down', 'paused'] as const;
export type HeartbeatState = (typeof HEARTBEAT_STATES)[number];
export type PingKind = 'success' | 'start' | 'fail';

export { cronProblem, nextDue, nextRuns } from '@upfleet/proto/heartbeat';

interface Row {
  url_id: number;
  user_id: number;
  monitoring_enabled: number;
  config: string;
  state: string;
  last_ping_at: number | null;
  started_at: number | null;
  down_for: number | null;
}

export interface PingLogEntry { at: string; kind: PingKind; source: string; body: string; run_ms: number | null }

export interface HeartbeatDeps {
  db: Db;
  box: SecretBox;
  logger: Logger;
  /** PUBLIC_URL, else the listening address (read at each call). */
  publicUrl(): string;
  now?: () => number;
  /** Stores result rows (ClickHouse); errors are logged, a ping still counts. */
  storeResults?(batchId: string, rows: CheckResult[]): Promise<void>;
  /** Told of stored rows (the dashboard's live state). */
  onResults?(rows: CheckResult[]): void;
  /** Opens (down) or resolves (up) the endpoint's down incident. */
  setDown(urlId: number, down: boolean, cause: string, t: number): void;
  /** The owner's plan's retention for a result row (through the endpoints repo). */
  retentionDays?(urlId: number): number | undefined;
  /** Pings a minute per token before 429 (60 unless set). */
  pingsPerMinute?: number;
}

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export function createHeartbeats(deps: HeartbeatDeps) {
  const { db } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'heartbeats' });
  const q = {
    insert: db.prepare('INSERT OR IGNORE INTO heartbeats (url_id, token_hash, token_sealed) VALUES (?, ?, ?)'),
    sealed: db.prepare('SELECT token_sealed FROM heartbeats WHERE url_id = ?').pluck(),
    rotate: db.prepare('UPDATE heartbeats SET token_hash = ?, token_sealed = ? WHERE url_id = ?'),
    byHash: db.prepare(`SELECT h.*, e.user_id, e.monitoring_enabled, c.config FROM heartbeats h JOIN endpoints e ON e.url_id = h.url_id
      JOIN endpoint_checks c ON c.url_id = h.url_id AND c.kind = 'heartbeat' WHERE h.token_hash = ?`),
    byId: db.prepare(`SELECT h.*, e.user_id, e.monitoring_enabled, c.config FROM heartbeats h JOIN endpoints e ON e.url_id = h.url_id
      JOIN endpoint_checks c ON c.url_id = h.url_id AND c.kind = 'heartbeat' WHERE h.url_id = ?`),
    watched: db.prepare(`SELECT h.*, e.user_id, e.monitoring_enabled, c.config FROM heartbeats h JOIN endpoints e ON e.url_id = h.url_id
      JOIN endpoint_checks c ON c.url_id = h.url_id AND c.kind = 'heartbeat'
      WHERE e.monitoring_enabled = 1 AND h.last_ping_at IS NOT NULL AND h.down_for IS NULL`),
    save: db.prepare('UPDATE heartbeats SET state = @state, last_ping_at = @last_ping_at, started_at = @started_at, deadline_at = @deadline_at, down_for = @down_for, last_body = COALESCE(@last_body, last_body) WHERE url_id = @url_id'),
    resume: db.prepare("UPDATE heartbeats SET state = 'new', last_ping_at = NULL, started_at = NULL, deadline_at = NULL, down_for = NULL WHERE url_id = ?"),
    log: db.prepare('INSERT INTO heartbeat_pings (url_id, at, kind, source, body, run_ms) VALUES (?, ?, ?, ?, ?, ?)'),
    prune: db.prepare(`DELETE FROM heartbeat_pings WHERE url_id = ? AND ping_id <= (SELECT ping_id FROM heartbeat_pings WHERE url_id = ? ORDER BY ping_id DESC LIMIT 1 OFFSET ${PING_LOG_SIZE})`),
    pings: db.prepare(`SELECT at, kind, source, body, run_ms FROM heartbeat_pings WHERE url_id = ? ORDER BY ping_id DESC LIMIT ${PING_LOG_SIZE}`),
  };
  const schedule = (r: Row): HeartbeatSchedule => JSON.parse(r.config) as EndpointCheck;
  const grace = (s: HeartbeatSchedule) => (s.grace_seconds ?? 0) * 1000;
  const perMinute = deps.pingsPerMinute ?? 60;
  const buckets = new Map<string, { start: number; n: number }>();

  function stateOf(r: Row, t: number): HeartbeatState {
    if (r.monitoring_enabled !== 1) return 'paused';
    if (r.last_ping_at === null) return 'new';
    if (r.down_for !== null) return 'down';
    const due = nextDue(schedule(r), r.last_ping_at);
    if (due !== null && t >= due + grace(schedule(r))) return 'down';
    return due !== null && t > due ? 'late' : 'up';
  }

  function store(r: Row, t: number, ok: boolean, runMs: number, error: string) {
    const row: CheckResult = {
      check_id: buildCheckId(r.url_id, PUSHED_AS, PUSH_REGION), endpoint_id: r.url_id, kind: PUSHED_AS, region: PUSH_REGION,
      ts_ms: t, ok, phase: ok ? '' : 'heartbeat', error, status_code: 0, dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 0, total_ms: runMs,
      cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0,
      retention_days: deps.retentionDays?.(r.url_id) ?? DEFAULT_RETENTION_DAYS, result_id: crypto.randomUUID(),
    };
    deps.onResults?.([row]);
    deps.storeResults?.(`hb-${row.result_id}`, [row]).catch((err: unknown) => log.warn({ urlId: r.url_id, err: (err as Error).message }, 'heartbeat result not stored'));
  }

  function save(r: Row, patch: Partial<Row> & { last_body?: string | null; deadline_at?: number | null }) {
    const next = { ...r, ...patch };
    q.save.run({ url_id: r.url_id, state: patch.state ?? r.state, last_ping_at: next.last_ping_at, started_at: next.started_at, down_for: next.down_for, deadline_at: patch.deadline_at ?? null, last_body: patch.last_body ?? null });
  }

  /** Marks every watched heartbeat past its deadline plus grace down (once per missed deadline). */
  function tick(t = now()): number {
    let marked = 0;
    for (const r of q.watched.all() as Row[]) {
      const s = schedule(r);
      const due = nextDue(s, r.last_ping_at!);
      if (due === null) continue;
      if (t < due + grace(s)) {
        const st = t > due ? 'late' : 'up';
        if (st !== r.state) save(r, { state: st, deadline_at: due });
        continue;
      }
      save(r, { state: 'down', down_for: due, deadline_at: due });
      const cause = `no ping since ${new Date(r.last_ping_at!).toISOString()} (expected by ${new Date(due).toISOString()})`;
      deps.setDown(r.url_id, true, cause, t);
      store(r, t, false, 0, `missed: ${cause}`);
      marked++;
    }
    return marked;
  }

  return {
    /** Gives a heartbeat endpoint its token (once; an edit keeps it). */
    ensure(urlId: number): void {
      const token = crypto.randomBytes(24).toString('base64url');
      q.insert.run(urlId, hashToken(token), deps.box.seal(token));
    },
    /** A new token: the old ping URL answers 404 from now on (a leaked URL is a write credential). */
    rotate(urlId: number): boolean {
      const token = crypto.randomBytes(24).toString('base64url');
      return q.rotate.run(hashToken(token), deps.box.seal(token), urlId).changes === 1;
    },
    /** Monitoring switched back on: new again until the next ping (what was missed while paused is not counted). */
    resume(urlId: number): void {
      q.resume.run(urlId);
    },
    pingUrl(urlId: number): string | null {
      const sealed = q.sealed.get(urlId) as string | undefined;
      return sealed ? `${deps.publicUrl().replace(/\/$/, '')}/ping/${deps.box.open(sealed)}` : null;
    },
    /** The state as the dashboard shows it; null when the endpoint is no heartbeat. */
    state(urlId: number, t = now()): HeartbeatState | null {
      const r = q.byId.get(urlId) as Row | undefined;
      return r ? stateOf(r, t) : null;
    },
    /** The last 100 pings, newest first (the owner is checked by the caller). */
    pings: (urlId: number): PingLogEntry[] => (q.pings.all(urlId) as Array<Omit<PingLogEntry, 'at'> & { at: number }>).map((p) => ({ ...p, at: new Date(p.at).toISOString() })),
    /**
     * One ping. `exitCode` 0 is a success, 1-255 a failure. Answers 'ok', 'unknown' (no such token)
     * or 'limited' (too many pings this minute).
     */
    ping(token: string, kind: PingKind, source: string, body: string, exitCode?: number): 'ok' | 'unknown' | 'limited' {
      const hash = hashToken(token);
      const r = q.byHash.get(hash) as Row | undefined;
      if (!r) return 'unknown';
      const t = now();
      const b = buckets.get(hash);
      if (!b || t - b.start >= 60_000) buckets.set(hash, { start: t, n: 1 });
      else if (++b.n > perMinute) return 'limited';
      if (buckets.size > 100_000) buckets.clear();
      const excerpt = Buffer.from(body, 'utf8').subarray(0, LIMITS_HEARTBEAT.bodyBytes).toString('utf8');
      const runMs = kind !== 'start' && r.started_at !== null ? t - r.started_at : null;
      db.transaction(() => {
        q.log.run(r.url_id, t, kind, source, excerpt.slice(0, 1000), runMs);
        q.prune.run(r.url_id, r.url_id);
      })();
      if (r.monitoring_enabled !== 1) return 'ok'; // paused: logged, no state change
      if (kind === 'start') {
        save(r, { started_at: t, deadline_at: null });
        return 'ok';
      }
      const s = schedule(r);
      const due = nextDue(s, t);
      if (kind === 'success') {
        save(r, { state: 'up', last_ping_at: t, started_at: null, down_for: null, deadline_at: due, last_body: excerpt });
        if (r.down_for !== null) deps.setDown(r.url_id, false, '', t);
        store(r, t, true, runMs ?? 0, '');
      } else {
        const cause = exitCode !== undefined ? `failure ping (exit code ${exitCode})` : 'failure ping';
        save(r, { state: 'down', last_ping_at: t, started_at: null, down_for: t, deadline_at: due, last_body: excerpt });
        deps.setDown(r.url_id, true, cause, t);
        store(r, t, false, runMs ?? 0, cause);
      }
      return 'ok';
    },
    tick,
    /** Checks deadlines every `everyMs` (and once now: a miss while the control plane was away). */
    start(everyMs = 5000): () => void {
      const run = () => {
        try {
          tick();
        } catch (err) {
          log.error({ err: (err as Error).message }, 'heartbeat deadline check failed');
        }
      };
      run();
      const timer = setInterval(run, everyMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
export type Heartbeats = ReturnType<typeof createHeartbeats>;
