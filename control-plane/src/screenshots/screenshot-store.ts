// Browser checks' screenshots: kept when their batch is admitted (services/ingest.ts), listed and
// served per endpoint (http/routes/screenshots.ts), removed when they expire (the plan's retention),
// when their endpoint goes, or oldest first when the store is over its size cap. The rows are in
// the control-plane database (screenshots-repo.ts), the bytes in a ScreenshotBlobs (blob-store.ts);
// never in ClickHouse, whose rows carry only the ids (results/row-encoding.ts).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CheckResult, Screenshot } from '@upfleet/proto';
import { LIMITS_BROWSER } from '@upfleet/proto/browser-steps';
import type { ScreenshotInfo } from '@upfleet/proto/rest';
import { clampRetentionDays } from '../checks';
import type { Logger } from '../logger';
import type { ScreenshotBlobs } from './blob-store';
import type { ScreenshotRow, ScreenshotsRepo } from './screenshots-repo';
import { screenshotId, sniffImage, type ScreenshotMime } from './screenshot-id';

const DAY_MS = 86_400_000;
/** Rows a sweep or an eviction handles per round. */
const PAGE = 200;
/** Screenshots listed per endpoint at most. */
export const SCREENSHOT_LIST_LIMIT = 100;

export interface ScreenshotStoreDeps {
  repo: ScreenshotsRepo;
  blobs: ScreenshotBlobs;
  /** The workspace an endpoint belongs to, or null when it is gone. */
  workspaceOf(endpointId: number): number | null;
  /** All screenshots together at most (SCREENSHOTS_MAX_MB); the oldest go first. */
  maxTotalBytes: number;
  /** One screenshot at most (the agent caps it too; checked again here). */
  maxFileBytes?: number;
  logger: Logger;
  now?: () => number;
  metrics?: Registry;
}

export type RefusedScreenshot = 'too_large' | 'not_an_image';

export function createScreenshotStore(deps: ScreenshotStoreDeps) {
  const now = deps.now ?? Date.now;
  const maxFile = deps.maxFileBytes ?? LIMITS_BROWSER.screenshotBytes;
  const log = deps.logger.child({ component: 'screenshots' });
  const registers = deps.metrics ? [deps.metrics] : [];
  const stored = new Counter({ name: 'upfleet_screenshots_stored_total', help: 'Browser-check screenshots stored', registers });
  const refused = new Counter({ name: 'upfleet_screenshots_refused_total', help: 'Screenshots not stored: over 300 kB or not a PNG/WebP', labelNames: ['reason'], registers });
  const removed = new Counter({ name: 'upfleet_screenshots_deleted_total', help: 'Screenshots deleted, by why', labelNames: ['reason'], registers });
  const bytesGauge = new Gauge({ name: 'upfleet_screenshots_bytes', help: 'Bytes of stored screenshots (as of the last store or sweep)', registers });

  const keyOf = (r: ScreenshotRow) => ({ workspaceId: r.workspace_id, endpointId: r.endpoint_id, id: r.id, mime: r.mime as ScreenshotMime });

  /** Rows first (a reader then finds no row for missing bytes), then the bytes. */
  async function remove(rows: ScreenshotRow[], reason: string): Promise<number> {
    if (rows.length === 0) return 0;
    const n = await deps.repo.delete(rows.map((r) => r.id));
    for (const r of rows) await deps.blobs.delete(keyOf(r));
    removed.inc({ reason }, n);
    return n;
  }

  function problem(s: Screenshot): RefusedScreenshot | ScreenshotMime {
    if (s.data.length > maxFile) return 'too_large';
    const mime = sniffImage(s.data);
    // Only bytes that are what they say: a declared type must match the magic bytes.
    if (!mime || (s.mime && s.mime !== mime)) return 'not_an_image';
    return mime;
  }

  /** Keeps the cap: deletes the oldest screenshots until all fit. */
  async function enforceCap(): Promise<number> {
    let total = await deps.repo.totalBytes();
    let evicted = 0;
    while (total > deps.maxTotalBytes) {
      const oldest = await deps.repo.oldest(PAGE);
      if (oldest.length === 0) break;
      const victims: ScreenshotRow[] = [];
      for (const r of oldest) {
        if (total <= deps.maxTotalBytes) break;
        victims.push(r);
        total -= r.bytes;
      }
      evicted += await remove(victims, 'cap');
    }
    bytesGauge.set(Math.max(0, total));
    if (evicted > 0) log.info({ evicted, maxBytes: deps.maxTotalBytes }, 'screenshots over the size cap: oldest deleted');
    return evicted;
  }

  return {
    /**
     * Stores the screenshots of admitted rows, each once (a re-sent batch stores nothing again),
     * and leaves on each row only the screenshots that are stored, without their bytes: the row's
     * `screenshot_ids` then names exactly those. Refused ones are counted and dropped.
     */
    async keep(rows: CheckResult[]): Promise<void> {
      let added = 0;
      for (const r of rows) {
        const shots = r.screenshots;
        if (!shots || shots.length === 0) continue;
        const workspaceId = deps.workspaceOf(r.endpoint_id);
        const kept: Screenshot[] = [];
        for (const s of shots) {
          const verdict = workspaceId === null ? null : problem(s);
          if (verdict === 'too_large' || verdict === 'not_an_image') {
            refused.inc({ reason: verdict });
            log.warn({ endpointId: r.endpoint_id, name: s.name, bytes: s.data.length, reason: verdict }, 'screenshot refused');
            continue;
          }
          if (verdict === null || workspaceId === null) continue;
          const id = screenshotId(r.result_id, s.name);
          const row: ScreenshotRow = {
            id, workspace_id: workspaceId, endpoint_id: r.endpoint_id, result_id: r.result_id, name: s.name.slice(0, 60), step: s.step,
            mime: verdict, bytes: s.data.length, taken_at: r.ts_ms, expires_at: r.ts_ms + clampRetentionDays(r.retention_days) * DAY_MS,
          };
          if (!(await deps.repo.exists(id))) {
            // Bytes before the row: a row always has its bytes. A re-send that finds the row skips both.
            await deps.blobs.put(keyOf(row), s.data);
            if (await deps.repo.insert(row)) {
              added++;
              stored.inc();
            }
          }
          kept.push({ ...s, data: Buffer.alloc(0) });
        }
        r.screenshots = kept;
      }
      if (added > 0) await enforceCap();
    },

    /** An endpoint's screenshots, newest first (at most SCREENSHOT_LIST_LIMIT). */
    async list(workspaceId: number, endpointId: number): Promise<ScreenshotInfo[]> {
      const rows = await deps.repo.list(workspaceId, endpointId, SCREENSHOT_LIST_LIMIT);
      return rows.map((r) => ({
        id: r.id, result_id: r.result_id, name: r.name, step: r.step, mime: r.mime as ScreenshotMime, bytes: r.bytes, taken_at: new Date(r.taken_at).toISOString(),
      }));
    },

    /** One screenshot's bytes and type, or null (another workspace's, expired, or never stored). */
    async read(workspaceId: number, endpointId: number, id: string): Promise<{ mime: ScreenshotMime; data: Buffer } | null> {
      const row = await deps.repo.get(workspaceId, endpointId, id);
      if (!row || row.expires_at <= now()) return null;
      const data = await deps.blobs.get(keyOf(row));
      return data ? { mime: row.mime as ScreenshotMime, data } : null;
    },

    /** Deletes an endpoint's screenshots (the endpoint was deleted). */
    async deleteForEndpoint(endpointId: number): Promise<number> {
      return remove(await deps.repo.forEndpoint(endpointId), 'endpoint_deleted');
    },

    /** Leader-only: deletes expired screenshots and those whose endpoint is gone, then keeps the cap. */
    async sweep(): Promise<{ expired: number; orphaned: number; evicted: number }> {
      let expired = 0;
      let orphaned = 0;
      for (let page = await deps.repo.expired(now(), PAGE); page.length > 0; page = await deps.repo.expired(now(), PAGE)) expired += await remove(page, 'expired');
      for (let page = await deps.repo.orphaned(PAGE); page.length > 0; page = await deps.repo.orphaned(PAGE)) orphaned += await remove(page, 'endpoint_deleted');
      const evicted = await enforceCap();
      if (expired + orphaned > 0) log.info({ expired, orphaned }, 'screenshots swept');
      return { expired, orphaned, evicted };
    },
  };
}
export type ScreenshotStore = ReturnType<typeof createScreenshotStore>;
