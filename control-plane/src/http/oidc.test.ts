// OpenID Connect sign-in (issue 23) against a real provider on loopback (oidc-provider), walked
// without a browser: PKCE code flow, account creation, linking an existing account only when the
// provider says the email is verified, the default workspace and role, and a flow not started here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC_EMAIL_NOT_VERIFIED } from '../services/oidc';
import { signInThroughProvider, startOidcProvider, type LocalOidcProvider } from '../testing/oidc-provider';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let op: LocalOidcProvider;
let shared = 0;
let ownerToken = '';
beforeAll(async () => {
  op = await startOidcProvider({
    carol: { email: 'carol@example.com', email_verified: true },
    dave: { email: 'dave@example.com', email_verified: false },
    erin: { email: 'erin@example.com', email_verified: true },
  });
  // Workspace 2 is the first one made on a fresh server (user 1 owns it).
  h = await startHarness({
    OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: 'upfleet', OIDC_CLIENT_SECRET: 'client-secret-for-tests',
    OIDC_DEFAULT_WORKSPACE_ID: '2', OIDC_DEFAULT_ROLE: 'editor',
  });
  op.register({ clientId: 'upfleet', clientSecret: 'client-secret-for-tests', redirectUri: `${h.cp.url}/api/auth/oidc/callback` });
  const owner = await h.signup('ssoowner');
  ownerToken = owner.token;
  shared = (await h.call('POST', '/api/workspaces', { name: 'Everyone' }, owner.token)).body.data.id;
});
afterAll(async () => {
  await h?.close();
  await op?.close();
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
    void ownerToken;
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
});
