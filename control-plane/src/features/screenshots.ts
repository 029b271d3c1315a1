// Screenshots of browser checks: the store (screenshots/), its routes, and the leader-only sweep
// that deletes expired screenshots and those of deleted endpoints, workspaces and accounts. An
// endpoint's deletion removes its screenshots at once (the change hub's `removed`, once the row is gone).
import path from 'node:path';
import { createFileBlobs } from '../screenshots/blob-store';
import { createScreenshotsRepo } from '../screenshots/screenshots-repo';
import { createScreenshotStore, type ScreenshotStore } from '../screenshots/screenshot-store';
import { screenshotRoutes } from '../http/routes/screenshots';
import type { Foundation } from './foundation';
import { every, whileLeader, type Feature } from './lifecycle';

/** How often expired and orphaned screenshots are looked for. */
export const SCREENSHOT_SWEEP_MS = 10 * 60_000;

export function createScreenshotsFeature(base: Foundation, opts: { sweepMs?: number } = {}) {
  const workspaceOfStmt = base.db.prepare<[number], { user_id: number }>('SELECT user_id FROM endpoints WHERE url_id = ?');
  const workspaceOf = (endpointId: number): number | null => workspaceOfStmt.get(endpointId)?.user_id ?? null;
  const store: ScreenshotStore = createScreenshotStore({
    repo: createScreenshotsRepo(base.sql.db),
    // One node: files under DATA_DIR. A cluster would give a ScreenshotBlobs over the database here.
    blobs: createFileBlobs(path.join(base.config.dataDir, 'screenshots')),
    workspaceOf,
    maxTotalBytes: base.config.screenshotsMaxMb * 1024 * 1024,
    logger: base.logger,
    now: base.now,
    metrics: base.metrics,
  });
  const log = base.logger.child({ component: 'screenshots' });
  const sweep = () => void store.sweep().catch((err: Error) => log.warn({ err: err.message }, 'screenshot sweep failed'));
  const timer = every(opts.sweepMs ?? SCREENSHOT_SWEEP_MS, sweep);
  const sweeping = whileLeader(base.leadership, { start: () => { sweep(); timer.start(); }, stop: () => timer.stop() });
  let unsubscribe: (() => void) | null = null;
  return {
    name: 'screenshots',
    services: { screenshots: store },
    routes: () => ({
      workspace: screenshotRoutes(() => ({ screenshots: store, endpointIn: (workspaceId, id) => workspaceOf(id) === workspaceId })),
    }),
    async start() {
      // `removed` also means paused: only an endpoint whose row is gone loses its screenshots.
      unsubscribe = base.changes.endpoints.subscribe({
        removed: (id) => {
          if (workspaceOf(id) !== null) return;
          void store.deleteForEndpoint(id).catch((err: Error) => log.warn({ endpointId: id, err: err.message }, 'screenshots of a deleted endpoint not deleted'));
        },
      });
      await sweeping.start();
    },
    async stop() {
      unsubscribe?.();
      await sweeping.stop();
    },
  } satisfies Feature<unknown>;
}
