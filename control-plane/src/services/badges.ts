// README badges of an endpoint: its uptime over 24 h / 7 d / 30 d (the dashboard badge's count,
// maintenance left out) and its live status, as SVG behind an unguessable token its editors can
// rotate. The token is the only key: a badge shows nothing but the one figure.
import crypto from 'node:crypto';
import type { EndpointStatus } from '@upfleet/proto/rest';
import { AppError, badRequest, notFound } from '../errors';
import { badgeSvg, type BadgeColor } from '../lib/badge-svg';
import type { MaintenanceSpan } from '../maintenance';
import type { UptimeWindow } from '../results/clickhouse-store';
import type { BadgesRepo } from '../store/badges-repo';

export const BADGE_WINDOWS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type BadgeWindow = keyof typeof BADGE_WINDOWS;

const STATUS_COLOR: Record<EndpointStatus, BadgeColor> = {
  up: 'green', degraded: 'yellow', down: 'red', maintenance: 'blue', paused: 'grey', pending: 'grey',
};
/** The SPEC's 7-day badge colours: at least 99.5 green, at least 95 yellow, below red. */
const uptimeColor = (pct: number): BadgeColor => (pct >= 99.5 ? 'green' : pct >= 95 ? 'yellow' : 'red');

/** 32 random bytes: not guessable, and safe in a URL path. */
const newToken = () => crypto.randomBytes(32).toString('base64url');
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function createBadges(deps: {
  repo: BadgesRepo;
  /** Throws 404 unless the endpoint is the workspace's (EndpointService.get). */
  ownedEndpoint(userId: number, urlId: number): unknown;
  endpoints: { createdAtMs(urlIds: number[]): Map<number, number>; monitoredById(urlId: number): unknown };
  uptime: { uptime(ids: number[], window: UptimeWindow): Promise<Map<number, number | null>> } | null;
  maintenance: { spansFor(urlIds: readonly number[], fromMs: number, untilMs: number): MaintenanceSpan[] };
  live: { statusOf(urlId: number, monitoringEnabled: boolean): EndpointStatus };
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  /** The endpoint a token opens; 404 for an unknown (or rotated) token and a deleted endpoint. */
  async function endpointOf(token: string): Promise<{ urlId: number; createdAtMs: number }> {
    const urlId = TOKEN_SHAPE.test(token) ? await deps.repo.endpointOf(token) : null;
    const createdAtMs = urlId === null ? undefined : deps.endpoints.createdAtMs([urlId]).get(urlId);
    if (urlId === null || createdAtMs === undefined) throw notFound('Badge not found');
    return { urlId, createdAtMs };
  }
  return {
    async tokenFor(userId: number, urlId: number): Promise<string> {
      deps.ownedEndpoint(userId, urlId);
      return deps.repo.ensure(urlId, newToken(), now());
    },
    async rotate(userId: number, urlId: number): Promise<string> {
      deps.ownedEndpoint(userId, urlId);
      const token = newToken();
      await deps.repo.rotate(urlId, token, now());
      return token;
    },
    async uptimeSvg(token: string, window: string | undefined): Promise<string> {
      const w = (window ?? '7d') as BadgeWindow;
      if (!Object.hasOwn(BADGE_WINDOWS, w)) throw badRequest('window must be 24h, 7d or 30d');
      const { urlId, createdAtMs } = await endpointOf(token);
      if (!deps.uptime) throw new AppError('unavailable', 'Results are not available');
      const at = now();
      const since = at - BADGE_WINDOWS[w];
      const pct = (await deps.uptime.uptime([urlId], {
        sinceMs: since, untilMs: at, createdAtMs: new Map([[urlId, createdAtMs]]), maintenance: deps.maintenance.spansFor([urlId], since, at),
      })).get(urlId) ?? null;
      return pct === null ? badgeSvg(`uptime ${w}`, 'no data', 'grey') : badgeSvg(`uptime ${w}`, `${pct.toFixed(2)}%`, uptimeColor(pct));
    },
    async statusSvg(token: string): Promise<string> {
      const { urlId } = await endpointOf(token);
      const status = deps.live.statusOf(urlId, deps.endpoints.monitoredById(urlId) !== undefined);
      return badgeSvg('status', status, STATUS_COLOR[status]);
    },
  };
}
export type Badges = ReturnType<typeof createBadges>;
