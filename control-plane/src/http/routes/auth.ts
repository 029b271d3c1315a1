import type { Router } from 'express';
import type { AuthService } from '../../services/auth';
import { LoginBody, PasswordChangeBody, ProfileUpdateBody, RefreshBody, SignupBody, TwoFactorDisableBody, TwoFactorVerifyBody } from '@upfleet/proto/schemas';
import { AppError } from '../../errors';
import { clientKey } from '../../lib/net';
import { parseInput } from '../../services/validation';
import { authOf, type SignIn } from '../middleware/auth';
import { mount, route, strictRouter } from '../route-table';

export function authRoutes(auth: AuthService, signIn: SignIn): Router {
  const r = strictRouter();
  const ip = (req: { ip?: string }) => clientKey(req.ip);

  r.post('/auth/signup', async (req, res) => {
    res.status(201).json({ success: true, data: await auth.signup(parseInput(SignupBody, req.body), ip(req)) });
  });
  r.post('/auth/login', async (req, res) => {
    res.json({ success: true, data: await auth.login(parseInput(LoginBody, req.body), ip(req)) });
  });
  r.post('/auth/refresh', async (req, res) => {
    res.json({ success: true, data: await auth.refresh(parseInput(RefreshBody, req.body), ip(req)) });
  });
  r.post('/auth/logout', signIn.user, async (req, res) => {
    await auth.logout(authOf(req).sessionId);
    res.json({ success: true, data: null, message: 'Logged out' });
  });
  r.get('/auth/validate-session', signIn.user, async (req, res) => {
    res.json({ success: true, data: await auth.me(authOf(req).userId) });
  });

  r.post('/2fa/setup', signIn.user, async (req, res) => {
    res.json({ success: true, data: await auth.setupTwoFactor(authOf(req).userId) });
  });
  r.post('/2fa/verify', signIn.user, async (req, res) => {
    const { userId, sessionId } = authOf(req);
    await auth.verifyTwoFactor(userId, sessionId, ip(req), parseInput(TwoFactorVerifyBody, req.body));
    res.json({ success: true, data: { enabled: true }, message: 'Two-factor authentication has been enabled successfully!' });
  });
  r.post('/2fa/disable', signIn.user, async (req, res) => {
    const { userId, sessionId } = authOf(req);
    await auth.disableTwoFactor(userId, sessionId, parseInput(TwoFactorDisableBody, req.body));
    res.json({ success: true, data: { enabled: false }, message: 'Two-factor authentication has been disabled' });
  });
  r.get('/2fa/status', signIn.user, async (req, res) => {
    res.json({ success: true, data: await auth.twoFactorStatus(authOf(req).userId) });
  });

  // The person's own account under /users (the SPEC's paths), before the workspace data routes.
  mount(r, [
    route('get', '/users/profile', 'account', async (req, res) => {
      res.json({ success: true, data: await auth.profile(authOf(req).userId) });
    }),
    route('put', '/users/profile', 'account', async (req, res) => {
      const { userId, sessionId } = authOf(req);
      res.json({ success: true, data: await auth.updateProfile(userId, sessionId, parseInput(ProfileUpdateBody, req.body)), message: 'Profile updated successfully!' });
    }),
    route('post', '/users/change-password', 'account', async (req, res) => {
      const { userId, sessionId } = authOf(req);
      await auth.changePassword(userId, sessionId, parseInput(PasswordChangeBody, req.body));
      res.json({ success: true, data: null, message: 'Password changed successfully!' });
    }),
  ], signIn.user);
  // The link in the verification mail: one use, 48 h; then the app's profile page.
  // A browser (asking for HTML first) lands on a page that says what happened, signed in or not.
  r.get('/auth/verify-email', async (req, res) => {
    const browser = req.accepts(['json', 'html']) === 'html';
    try {
      await auth.verifyEmail(typeof req.query.token === 'string' ? req.query.token : '');
    } catch (err) {
      if (browser && err instanceof AppError) return res.redirect(302, `/email-verified?error=${encodeURIComponent(err.message)}`);
      throw err;
    }
    res.redirect(302, browser ? '/email-verified' : '/profile?email_verified=1');
  });
  r.post('/auth/resend-verification', signIn.user, async (req, res) => {
    res.json({ success: true, data: await auth.resendVerification(authOf(req).userId), message: 'Verification email sent' });
  });
  return r;
}
