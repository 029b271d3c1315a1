// The heartbeat ping routes: no sign-in, plain text answers, rate-limited per token
// (services/heartbeats.ts). GET, HEAD or POST /ping/{token} is a success; /start marks a job start;
// /fail and /{exit_code} (0 success, 1-255 failure) a failure. The body (POST) is kept, up to 10 kB.
import express, { Router, type Request, type Response } from 'express';
import type { Heartbeats, PingKind } from '../../services/heartbeats';

const text = (res: Response, status: number, body: string) => {
  res.status(status).type('text/plain; charset=utf-8').setHeader('Cache-Control', 'no-store');
  res.send(body);
};

export function heartbeatPingRoutes(heartbeats: Heartbeats): Router {
  const r = Router();
  // Larger bodies are cut to 10 kB by the service, not refused: a job's log tail should not fail its ping.
  r.use('/ping', express.raw({ type: () => true, limit: '1mb' }));
  const handle = (kind: PingKind, exitCode?: number) => (req: Request, res: Response) => {
    const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    const out = heartbeats.ping(String(req.params.token), kind, req.ip ?? req.socket.remoteAddress ?? '', body, exitCode);
    if (out === 'unknown') return text(res, 404, 'Not found: no heartbeat has this ping URL\n');
    if (out === 'limited') return text(res, 429, 'Too many pings: at most 60 a minute\n');
    text(res, 200, 'OK\n');
  };
  const methods = (path: string, fn: (req: Request, res: Response) => void) => {
    r.get(path, fn); // express answers HEAD with the GET route
    r.post(path, fn);
  };
  methods('/ping/:token', handle('success'));
  methods('/ping/:token/start', handle('start'));
  methods('/ping/:token/fail', handle('fail'));
  methods('/ping/:token/:code', (req, res) => {
    const raw = String(req.params.code);
    const code = /^\d{1,3}$/.test(raw) ? Number(raw) : -1;
    if (code < 0 || code > 255) return text(res, 400, 'Bad request: the exit code must be a whole number from 0 to 255\n');
    handle(code === 0 ? 'success' : 'fail', code)(req, res);
  });
  return r;
}
