// A real OpenID Connect provider on loopback for tests (the oidc-provider package, with its own
// development login and consent pages), and a browser-less walk through its sign-in with a cookie jar.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount { email: string; email_verified: boolean; preferred_username?: string }

export interface LocalOidcProvider {
  issuer: string;
  /** Registers the relying party once its redirect URI is known (the control plane starts after the issuer's address is). */
  register(client: { clientId: string; clientSecret: string; redirectUri: string }): void;
  close(): Promise<void>;
}

export async function startOidcProvider(accounts: Record<string, TestAccount>): Promise<LocalOidcProvider> {
  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    register({ clientId, clientSecret, redirectUri }) {
      const provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
        findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, preferred_username: id, ...accounts[id] }) }),
        cookies: { keys: ['test-cookie-key'] },
      });
      handler = provider.callback();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Follows a sign-in from `startUrl` (the control plane's /api/auth/oidc/start) through the
 * provider's login (`login` as the account id) and consent pages, as a browser would, and answers
 * the control plane's final redirect (`/login/sso#…` or `/login?sso_error=…`).
 */
export async function signInThroughProvider(startUrl: string, login: string, opts: { dropStateCookie?: boolean } = {}): Promise<string> {
  const jar = new Map<string, Map<string, string>>(); // host → cookies
  const cookieHeader = (u: URL) => [...(jar.get(u.host) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (u: URL, res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, ...v] = pair.split('=');
      if (!jar.has(u.host)) jar.set(u.host, new Map());
      jar.get(u.host)!.set(k.trim(), v.join('='));
    }
  };
  let url = new URL(startUrl);
  let method = 'GET';
  let body: string | undefined;
  const origin = url.origin;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method, redirect: 'manual', body,
      headers: { cookie: cookieHeader(url), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    keep(url, res);
    if (opts.dropStateCookie && url.origin === origin) jar.delete(url.host);
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.origin === origin && !next.pathname.startsWith('/api/')) return next.pathname + next.search + next.hash;
      url = next;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html)?.[1];
    if (!action) throw new Error(`no form at ${url.href} (${res.status}): ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    url = new URL(action.replace(/&amp;/g, '&'), url);
    method = 'POST';
    body = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt ?? 'consent' }).toString();
  }
  throw new Error('too many redirects');
}
