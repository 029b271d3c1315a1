// OpenID Connect sign-in routes. GET /api/auth/oidc says whether the login page shows the button;
// /start sends the browser to the provider with a state cookie; /callback signs the person in and
// hands the web app its tokens in the URL fragment (never sent to a server or logged), or, for an
// account with two-factor, a ticket the web app trades with the code at POST /two-factor.
import type { Router, Request } from 'express';
import { clientKey } from '../../lib/net';
import type { OidcService } from '../../services/oidc';
import type { RateLimiter } from '../../services/rate-limiter';
import { AppError } from '../../errors';
import { strictRouter } from '../route-table';
import { OidcTwoFactorBody } from '@upfleet/proto/schemas';
import { parseInput } from '../../services/validation';

const STATE_COOKIE = 'upfleet_oidc_state';

function cookie(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return null;
}

export function oidcRoutes(deps: { oidc: OidcService | null; limiter: RateLimiter }): Router {
  const r = strictRouter();
  r.get('/auth/oidc', (_req, res) => {
    res.json({ success: true, data: deps.oidc ? { enabled: true, button_label: deps.oidc.buttonLabel } : { enabled: false, button_label: null } });
  });
  if (!deps.oidc) return r;
  const service = deps.oidc;
  r.get('/auth/oidc/start', async (req, res) => {
    await deps.limiter.consume('login_ip', clientKey(req.ip));
    const { url, state } = await service.start();
    res.setHeader('Set-Cookie', `${STATE_COOKIE}=${state}; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=600${req.secure ? '; Secure' : ''}`);
    res.redirect(302, url);
  });
  r.get('/auth/oidc/callback', async (req, res) => {
    res.setHeader('Set-Cookie', `${STATE_COOKIE}=; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0`);
    try {
      await deps.limiter.consume('login_ip', clientKey(req.ip));
      if (typeof req.query.error === 'string') throw new AppError('unauthorized', `The provider refused the sign-in (${req.query.error.slice(0, 80)})`);
      const url = new URL(req.originalUrl, 'http://callback.invalid');
      const t = await service.callback(url, cookie(req, STATE_COOKIE), req.ip);
      const fragment = new URLSearchParams(t.twoFactorTicket !== undefined ? { two_factor_ticket: t.twoFactorTicket } : { access_token: t.accessToken, refresh_token: t.refreshToken });
      res.redirect(302, `/login/sso#${fragment.toString()}`);
    } catch (err) {
      const message = err instanceof AppError ? err.message : 'Single sign-on failed. Please try again.';
      res.redirect(302, `/login?sso_error=${encodeURIComponent(message)}`);
    }
  });
  r.post('/auth/oidc/two-factor', async (req, res) => {
    await deps.limiter.consume('login_ip', clientKey(req.ip));
    const body = parseInput(OidcTwoFactorBody, req.body);
    const t = await service.completeTwoFactor(body.ticket, body.two_factor_code ?? '');
    res.json({ success: true, data: { accessToken: t.accessToken, refreshToken: t.refreshToken } });
  });
  return r;
}
