// Local stand-ins for alert providers on loopback, port 0: an HTTP server that records each request
// and answers as scripted (Slack, Telegram, Twilio, Discord, Teams and webhook wire formats are
// answered by the test's script), and a real SMTP server (the smtp-server package).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Answer for the n-th request (0-based); 'hang' never answers (until close). */
export type Script = (req: ReceivedRequest, n: number) => ScriptedAnswer | 'hang' | Promise<ScriptedAnswer | 'hang'>;

export interface HttpReceiver {
  url: string;
  requests: ReceivedRequest[];
  script: Script;
  close(): Promise<void>;
}

export async function startHttpReceiver(script: Script = () => ({ status: 200, body: { ok: true } })): Promise<HttpReceiver> {
  const hanging = new Set<http.ServerResponse>();
  const r: HttpReceiver = { url: '', requests: [], script, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void (async () => {
      const rec: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = r.requests.push(rec) - 1;
      const answer = await r.script(rec, n);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json', ...answer.headers });
      res.end(body);
    })());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () => new Promise<void>((resolve) => {
    for (const res of hanging) res.destroy();
    server.close(() => resolve());
    server.closeAllConnections();
  });
  return r;
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpReceiver {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** SMTP code to answer the DATA command with instead of 250 (e.g. 550 or 451). */
  rejectWith: number | null;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const r: SmtpReceiver = { url: '', port: 0, messages: [], rejectWith: null, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(_auth, _session, cb) {
      cb(null, { user: 'test' });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (r.rejectWith) {
          const err = Object.assign(new Error(r.rejectWith >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: r.rejectWith });
          return cb(err);
        }
        r.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((a) => a.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  r.port = port;
  r.url = `smtp://user:pass@127.0.0.1:${port}`;
  r.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return r;
}
