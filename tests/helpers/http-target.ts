// A loopback HTTP target that counts the requests each path receives, with their times.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingTarget {
  url(p: string): string;
  hits(p: string): number[];
  total(p: string): number;
  close(): Promise<void>;
}

export async function startCountingTarget(): Promise<CountingTarget> {
  const hits = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    if (!hits.has(p)) hits.set(p, []);
    hits.get(p)!.push(Date.now());
    res.writeHead(p.startsWith('/down') ? 503 : 200, { 'content-type': 'text/plain', connection: 'close' });
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    hits: (p) => [...(hits.get(p) ?? [])],
    total: (p) => hits.get(p)?.length ?? 0,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
