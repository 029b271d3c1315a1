// A loopback login page for browser-check tests: /login posts to /welcome, which greets the user
// when the password is right. `broken = true` makes the form's button do nothing (a broken bundle).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const LOGIN_PASSWORD = 'hunter2-secret';

export interface LoginPage {
  url: string;
  broken: boolean;
  close(): Promise<void>;
}

const LOGIN_HTML = (broken: boolean) => `<!doctype html><html><head><title>Sign in</title></head><body>
<form id="f" action="/welcome" method="post">
<label>User <input id="user" name="user"></label>
<label>Password <input id="password" name="password" type="password"></label>
<button id="submit" type="submit">Sign in</button>
</form>
${broken ? '<script>document.getElementById("f").addEventListener("submit", (e) => { e.preventDefault(); throw new Error("bundle broke"); });</script>' : ''}
</body></html>`;

export async function startLoginPage(): Promise<LoginPage> {
  const page: LoginPage = { url: '', broken: false, close: async () => undefined };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/login') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_HTML(page.broken));
      return;
    }
    if (req.method === 'POST' && req.url === '/welcome') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const ok = form.get('password') === LOGIN_PASSWORD;
        res.writeHead(ok ? 200 : 401, { 'content-type': 'text/html' })
          .end(ok ? `<!doctype html><title>Dashboard</title><h1>Welcome, ${form.get('user') ?? ''}</h1>` : '<!doctype html><title>Sign in</title><p>Wrong password</p>');
      });
      return;
    }
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  page.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  page.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return page;
}

/** The steps that sign in on the page: the password a secret fill. */
export const LOGIN_STEPS = [
  { action: 'fill', selector: '#user', value: 'alice' },
  { action: 'fill', selector: '#password', value: LOGIN_PASSWORD, secret: true },
  { action: 'click', selector: '#submit' },
  { action: 'expect_text', selector: 'h1', contains: 'Welcome' },
  { action: 'screenshot', name: 'signed in' },
];
