// The agent's /metrics endpoint on 127.0.0.1 (prom-client). Each part registers its own series
// on the registry the wiring gives it; this file adds the process figures and serves the text.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/** A registry with the process figures (resident memory, V8 heap, ...) already on it. */
export function createAgentRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** A counter whose total is kept elsewhere (a stats object, the db): read when scraped. */
export function totalFrom(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({ name, help, registers: [registry], collect() { this.reset(); this.inc(read()); } });
}

/** A gauge read from its owner when scraped. */
export function gaugeFrom(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(host: string, port: number, registry: Registry): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: Error) => res.writeHead(500).end(`${err.message}\n`),
      );
    } else {
      res.writeHead(404).end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
