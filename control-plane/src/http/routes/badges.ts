// README badges: the URLs and Markdown for an endpoint's editors (and a rotation that ends the old
// token at once), and the public SVGs behind the token, cached 60 s by browsers and proxies.
import type { Request, Response } from 'express';
import { AppError } from '../../errors';
import type { Badges } from '../../services/badges';
import { parseId } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { limitPerAddress } from '../middleware/rate-limit';
import { publicOrigin } from '../origin';
import { route, strictRouter, type RouteDecl } from '../route-table';

/** What an editor is shown: the badge URLs and a Markdown snippet to paste into a README. */
function badgeAnswer(origin: string, token: string) {
  const base = `${origin}/badge/${token}`;
  const uptime = { '24h': `${base}/uptime.svg?window=24h`, '7d': `${base}/uptime.svg?window=7d`, '30d': `${base}/uptime.svg?window=30d` };
  const status = `${base}/status.svg`;
  return { badge_token: token, status_url: status, uptime_urls: uptime, markdown: `![status](${status}) ![uptime 30d](${uptime['30d']})` };
}

const badgesOf = (badges: Badges | undefined) => {
  if (!badges) throw new AppError('unavailable', 'Badges are not available');
  return badges;
};

export function badgeRoutes(deps: { badges?: Badges; publicUrl?: string | null }): RouteDecl[] {
  const answer = async (req: Request, res: Response, token: Promise<string>) => {
    const origin = publicOrigin(req, res, deps.publicUrl);
    if (!origin) throw new AppError('bad_request', 'The request has no valid Host');
    res.json({ success: true, data: badgeAnswer(origin, await token) });
  };
  const id = (req: Request) => parseId(req.params.id, 'Endpoint not found');
  return [
    route('get', '/users/endpoints/:id/badge', 'editor', async (req, res) => {
      await answer(req, res, badgesOf(deps.badges).tokenFor(authOf(req).userId, id(req)));
    }),
    route('post', '/users/endpoints/:id/badge/rotate', { role: 'editor', action: 'endpoint.rotate_badge' }, async (req, res) => {
      await answer(req, res, badgesOf(deps.badges).rotate(authOf(req).userId, id(req)));
    }),
  ];
}

/** GET /badge/{token}/uptime.svg?window=24h|7d|30d and /badge/{token}/status.svg (no sign-in: the token is the key). */
export function badgeSite(deps: { badges?: Badges; publicPerMinute?: number }) {
  const r = strictRouter();
  // Per address: READMEs are read through image proxies that share addresses, so the allowance is wide.
  r.use('/badge', limitPerAddress(Math.max(600, deps.publicPerMinute ?? 0)));
  const svg = (res: Response, body: string) => {
    res.set({ 'Content-Type': 'image/svg+xml; charset=utf-8', 'Cache-Control': 'public, max-age=60' }).send(body);
  };
  r.get('/badge/:token/uptime.svg', async (req, res) => {
    svg(res, await badgesOf(deps.badges).uptimeSvg(req.params.token, typeof req.query.window === 'string' ? req.query.window : undefined));
  });
  r.get('/badge/:token/status.svg', async (req, res) => {
    svg(res, await badgesOf(deps.badges).statusSvg(req.params.token));
  });
  return r;
}
