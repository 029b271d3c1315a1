// OpenID Connect sign-in against a real provider on loopback (oidc-provider), walked without a
// browser: PKCE code flow, account creation, linking an existing account only when the provider says
// the email is verified (and taking over one whose address was never verified here), the two-factor
// step, the default workspace and role, and a flow not started here. SMTP is on (a real receiver on
// loopback), so addresses signed up here start unverified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { OIDC_EMAIL_NOT_VERIFIED, OIDC_TWO_FACTOR_EXPIRED } from '../services/oidc';
import { startSmtpReceiver, type SmtpReceiver } from '../testing/alert-receivers';
import { signInThroughProvider, startOidcProvider, type LocalOidcProvider } from '../testing/oidc-provider';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let op: LocalOidcProvider;
let smtp: SmtpReceiver;
let shared = 0;
let ownerToken = '';
beforeAll(async () => {
  op = await startOidcProvider({
    carol: { email: 'carol@example.com', email_verified: true },
    dave: { email: 'dave@example.com', email_verified: false },
    erin: { email: 'erin@example.com', email_verified: true },
    victim: { email: 'victim@example.com', email_verified: true },
    grace: { email: 'grace@example.com', email_verified: true },
    heidi: { email: 'heidi@example.com', email_verified: true },
    ivan: { email: 'ivan@example.com', email_verified: true },
  });
  smtp = await startSmtpReceiver();
  // Workspace 2 is the first one made on a fresh server (user 1 owns it).
  h = await startHarness({
    OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: 'upfleet', OIDC_CLIENT_SECRET: 'client-secret-for-tests',
    OIDC_DEFAULT_WORKSPACE_ID: '2', OIDC_DEFAULT_ROLE: 'editor', SMTP_URL: smtp.url, SMTP_FROM: 'Upfleet <no-reply@upfleet.test>',
  });
  op.register({ clientId: 'upfleet', clientSecret: 'client-secret-for-tests', redirectUri: `${h.cp.url}/api/auth/oidc/callback` });
  const owner = await h.signup('ssoowner');
  ownerToken = owner.token;
  shared = (await h.call('POST', '/api/workspaces', { name: 'Everyone' }, owner.token)).body.data.id;
});
afterAll(async () => {
  await h?.close();
  await op?.close();
  await smtp?.close();
});

const tokensOf = (finalUrl: string) => {
  expect(finalUrl.startsWith('/login/sso#'), finalUrl).toBe(true);
  const p = new URLSearchParams(finalUrl.split('#')[1]);
  return { access: p.get('access_token')!, refresh: p.get('refresh_token')! };
};

describe('OIDC sign-in', () => {
  it('says whether the login page shows the button', async () => {
    expect((await h.call('GET', '/api/auth/oidc')).body.data).toEqual({ enabled: true, button_label: 'Sign in with SSO' });
  });

  it('creates the account on first sign-in (PKCE code flow), makes it a member of the default workspace, and signs the same person in again', async () => {
    expect(shared).toBe(2);
    const start = await fetch(`${h.cp.url}/api/auth/oidc/start`, { redirect: 'manual' });
    const auth = new URL(start.headers.get('location')!);
    expect(auth.origin).toBe(op.issuer);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(start.headers.get('set-cookie')).toMatch(/upfleet_oidc_state=.*HttpOnly; SameSite=Lax/);

    const t = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'carol'));
    const me = (await h.call('GET', '/api/users/profile', undefined, t.access)).body.data;
    expect(me).toMatchObject({ username: 'carol', email: 'carol@example.com' });
    const ws = (await h.call('GET', '/api/workspaces', undefined, t.access)).body.data;
    expect(ws.map((w: { name: string; role: string }) => [w.name, w.role])).toEqual([['Personal', 'owner'], ['Everyone', 'editor']]);
    // again: the same account, no second one
    const again = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'carol'));
    expect((await h.call('GET', '/api/auth/validate-session', undefined, again.access)).body.data).toEqual((await h.call('GET', '/api/auth/validate-session', undefined, t.access)).body.data);
    expect((await h.call('GET', '/api/admin/users', undefined, h.cp.adminToken)).body.data.filter((u: { email: string }) => u.email === 'carol@example.com')).toHaveLength(1);
    // an SSO account has no password to sign in with
    expect((await h.call('POST', '/api/auth/login', { email: 'carol@example.com', password: '!' })).status).toBe(401);
  });

  it('links an existing account only when the provider says the email is verified', async () => {
    await h.signup('dave'); // dave@example.com, password account
    const refused = await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'dave');
    expect(refused).toBe(`/login?sso_error=${encodeURIComponent(OIDC_EMAIL_NOT_VERIFIED)}`);
    const erin = await h.signup('erin'); // erin@example.com; the provider has verified it
    const t = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'erin'));
    const session = (await h.call('GET', '/api/auth/validate-session', undefined, t.access)).body.data;
    expect(session).toMatchObject({ id: erin.user.id, username: erin.user.username, email: 'erin@example.com' });
  });

  it('refuses a callback whose state this browser did not start', async () => {
    const out = await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'carol', { dropStateCookie: true });
    expect(out.startsWith('/login?sso_error=')).toBe(true);
    expect(decodeURIComponent(out)).toContain('This sign-in has expired or was not started here');
  });

  it('takes over an account signed up with the address but never verified: the squatter\'s password and sessions end', async () => {
    const squatter = await h.call('POST', '/api/auth/signup', { username: 'squatter', email: 'victim@example.com', password: 'squatters password' });
    expect(squatter.status).toBe(201);
    expect((await h.call('GET', '/api/users/profile', undefined, squatter.body.data.accessToken)).body.data.email_verified).toBe(false);

    const t = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'victim'));
    const me = (await h.call('GET', '/api/users/profile', undefined, t.access)).body.data;
    expect(me).toMatchObject({ email: 'victim@example.com', email_verified: true });
    // the squatter is out: the old session, its refresh token and the password all fail
    expect((await h.call('GET', '/api/auth/validate-session', undefined, squatter.body.data.accessToken)).status).toBe(401);
    expect((await h.call('POST', '/api/auth/refresh', { refreshToken: squatter.body.data.refreshToken })).status).toBe(401);
    expect((await h.call('POST', '/api/auth/login', { email: 'victim@example.com', password: 'squatters password' })).status).toBe(401);
    // the victim keeps signing in through the provider
    const again = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'victim'));
    expect((await h.call('GET', '/api/auth/validate-session', undefined, again.access)).body.data.id).toBe(squatter.body.data.user.id);
  });

  it('a taken-over account\'s personal workspace keeps none of the members or invitations the squatter made', async () => {
    const squatter = await h.call('POST', '/api/auth/signup', { username: 'squatter2', email: 'ivan@example.com', password: 'squatters password' });
    const ws = squatter.body.data.user.id; // the personal workspace
    await h.setPackage('ivan@example.com', 'Pro'); // room for members
    const invite = (email: string) => h.call('POST', `/api/workspaces/${ws}/invitations`, { email, role: 'admin' }, squatter.body.data.accessToken);
    expect((await invite('carol@example.com')).status).toBe(201);
    expect((await invite('someone@example.com')).status).toBe(201);
    // carol (verified through SSO) is the squatter's accomplice and joins
    const carol = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'carol'));
    const mail = smtp.messages.filter((m) => m.to.includes('carol@example.com')).map((m) => m.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')).join('\n');
    const token = /\/invitations\/([A-Za-z0-9_-]{20,})/.exec(mail)?.[1];
    expect(token, mail.slice(0, 300)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, carol.access)).status).toBe(200);
    expect((await h.call('GET', `/api/workspaces/${ws}/members`, undefined, carol.access)).status).toBe(200);

    const victim = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'ivan'));
    const members = (await h.call('GET', `/api/workspaces/${ws}/members`, undefined, victim.access)).body.data;
    expect(members.map((m: { email?: string; username: string }) => m.username)).toEqual(['squatter2']);
    expect((await h.call('GET', `/api/workspaces/${ws}/invitations`, undefined, victim.access)).body.data).toEqual([]);
    expect((await h.call('GET', `/api/workspaces/${ws}/members`, undefined, carol.access)).status).toBe(404);
  });

  it('asks an account with two-factor for its code after the provider\'s sign-in, and signs in only with a right one', async () => {
    const first = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'grace'));
    const setup = (await h.call('POST', '/api/2fa/setup', undefined, first.access)).body.data;
    const { authenticator } = await import('otplib');
    expect((await h.call('POST', '/api/2fa/verify', { token: authenticator.generate(setup.secret) }, first.access)).status).toBe(200);

    const out = await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'grace');
    expect(out).toMatch(/^\/login\/sso#two_factor_ticket=[A-Za-z0-9_-]{43}$/);
    expect(out).not.toContain('access_token');
    const ticket = new URLSearchParams(out.split('#')[1]).get('two_factor_ticket')!;
    const none = await h.call('POST', '/api/auth/oidc/two-factor', { ticket });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ success: false, requires2FA: true });
    const wrong = await h.call('POST', '/api/auth/oidc/two-factor', { ticket, two_factor_code: '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ success: false, error: MESSAGES.invalidCode, requires2FA: true });
    const right = await h.call('POST', '/api/auth/oidc/two-factor', { ticket, two_factor_code: setup.backupCodes[0] });
    expect(right.status).toBe(200);
    const session = (await h.call('GET', '/api/auth/validate-session', undefined, right.body.data.accessToken)).body.data;
    expect(session).toMatchObject({ email: 'grace@example.com', two_factor_enabled: true });
    // a ticket signs in once
    const reused = await h.call('POST', '/api/auth/oidc/two-factor', { ticket, two_factor_code: setup.backupCodes[1] });
    expect(reused.body).toEqual({ success: false, error: OIDC_TWO_FACTOR_EXPIRED });
  });

  it('does not add a member an admin removed from the default workspace back on the next sign-in', async () => {
    const t = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'heidi'));
    const id = (await h.call('GET', '/api/auth/validate-session', undefined, t.access)).body.data.id;
    const names = async (token: string) => (await h.call('GET', '/api/workspaces', undefined, token)).body.data.map((w: { name: string }) => w.name);
    expect(await names(t.access)).toEqual(['Personal', 'Everyone']);
    expect((await h.call('DELETE', `/api/workspaces/${shared}/members/${id}`, undefined, ownerToken)).status).toBe(200);
    const again = tokensOf(await signInThroughProvider(`${h.cp.url}/api/auth/oidc/start`, 'heidi'));
    expect(await names(again.access)).toEqual(['Personal']);
  });
});
