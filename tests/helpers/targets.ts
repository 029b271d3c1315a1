// Loopback check targets for probe, agent and e2e tests: every server listens on port 0 and
// every certificate is made by node-forge at test time, so no test depends on the network.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import forge from 'node-forge';

export interface Pem { cert: string; key: string }

export interface MakeCertOptions {
  /** Days from now until notAfter; negative makes an already expired certificate. */
  daysValid?: number;
  /** Issue a self-signed leaf instead of one signed by `ca`. */
  selfSigned?: boolean;
  /** Issuing CA; required unless selfSigned. */
  ca?: Pem;
  commonName?: string;
  /** DNS names and IP addresses put in subjectAltName. */
  altNames?: string[];
}

const DAY_MS = 86_400_000;

function newSerial(): string {
  // Positive, 16 bytes: forge writes it as given and negative serials upset OpenSSL.
  return '01' + forge.util.bytesToHex(forge.random.getBytesSync(15));
}

function keyPair(): forge.pki.rsa.KeyPair {
  // forge hands this to node's crypto.generateKeyPairSync, so it takes milliseconds.
  return forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
}

/** A CA certificate (self-signed, basicConstraints cA) for signing test leaves. */
export function makeCa(commonName = 'Upfleet Test CA'): Pem {
  const keys = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = newSerial();
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + 3650 * DAY_MS);
  const attrs = [{ name: 'commonName', value: commonName }, { name: 'organizationName', value: 'Upfleet Tests' }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** A server certificate for `altNames` (default localhost + 127.0.0.1 + ::1). */
export function makeCert(opts: MakeCertOptions = {}): Pem {
  const daysValid = opts.daysValid ?? 90;
  const commonName = opts.commonName ?? 'localhost';
  const altNames = opts.altNames ?? ['localhost', '127.0.0.1', '::1'];
  if (!opts.selfSigned && !opts.ca) throw new Error('makeCert needs ca unless selfSigned');
  const keys = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = newSerial();
  const notAfter = Date.now() + daysValid * DAY_MS;
  cert.validity.notBefore = new Date(Math.min(Date.now() - DAY_MS, notAfter - 30 * DAY_MS));
  cert.validity.notAfter = new Date(notAfter);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  let signer = keys.privateKey;
  if (opts.selfSigned) {
    cert.setIssuer([{ name: 'commonName', value: commonName }]);
  } else {
    const ca = forge.pki.certificateFromPem(opts.ca!.cert);
    cert.setIssuer(ca.subject.attributes);
    signer = forge.pki.privateKeyFromPem(opts.ca!.key);
  }
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: altNames.map((n) => (net.isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
  ]);
  cert.sign(signer, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

export interface Targets {
  /** PEM of the CA that signed the "valid" and "expiring" certificates. */
  caPem: string;
  http: {
    ok: string;
    serverError: string;
    /** 3 × 301 then 200 */
    redirectChain: string;
    /** 301 a → b → a … */
    redirectLoop: string;
    /** 10 × 301 then 200: more hops than the default limit of 5 */
    redirectLong: string;
    /** answers after 30 s */
    slow: string;
    /** streams 20 MiB */
    huge: string;
  };
  /** wrongHost: trusted CA, but issued for wrong-host.example only */
  https: { valid: string; expiring: string; expired: string; selfSigned: string; wrongHost: string };
  /** a loopback port nothing listens on */
  refused: string;
  /** RFC 6761: .invalid never resolves */
  unresolvable: string;
  /** number of HTTP requests the plain target has answered (all paths) */
  hits(): number;
  /** number of TCP connections the plain target has accepted */
  connections(): number;
  close(): Promise<void>;
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });
}

/** Port that was just free: bind, read, close. Connections to it are refused. */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function route(req: http.IncomingMessage, res: http.ServerResponse, timers: Set<NodeJS.Timeout>): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const p = url.pathname;
  const chain = /^\/redirect\/(\d+)$/.exec(p);
  if (p === '/ok' || p === '/') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  } else if (p === '/error') {
    res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
  } else if (chain) {
    const n = Number(chain[1]);
    res.writeHead(301, { location: n > 1 ? `/redirect/${n - 1}` : '/ok' }).end();
  } else if (p === '/loop/a' || p === '/loop/b') {
    res.writeHead(301, { location: p === '/loop/a' ? '/loop/b' : '/loop/a' }).end();
  } else if (p === '/slow') {
    const t = setTimeout(() => { timers.delete(t); res.writeHead(200).end('late'); }, 30_000);
    timers.add(t);
    res.on('close', () => { clearTimeout(t); timers.delete(t); });
  } else if (p === '/huge') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let left = 20 * 1024 * 1024;
    const pump = (): void => {
      while (left > 0) {
        left -= chunk.length;
        if (!res.write(chunk)) { res.once('drain', pump); return; }
      }
      res.end();
    };
    pump();
  } else {
    res.writeHead(404).end('not found');
  }
}

/** Starts every target on loopback port 0. Call close() in afterAll. */
export async function startTargets(): Promise<Targets> {
  const timers = new Set<NodeJS.Timeout>();
  let hits = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    hits++;
    route(req, res, timers);
  };
  const servers: net.Server[] = [];
  const plain = http.createServer(handler);
  let connections = 0;
  plain.on('connection', () => connections++);
  servers.push(plain);
  const base = `http://127.0.0.1:${await listen(plain)}`;

  const ca = makeCa();
  const httpsUrl = async (pem: Pem): Promise<string> => {
    const s = https.createServer({ cert: pem.cert, key: pem.key }, handler);
    servers.push(s);
    return `https://localhost:${await listen(s)}/ok`;
  };
  const valid = await httpsUrl(makeCert({ ca, daysValid: 90 }));
  const expiring = await httpsUrl(makeCert({ ca, daysValid: 5 }));
  const expired = await httpsUrl(makeCert({ ca, daysValid: -2 }));
  const selfSigned = await httpsUrl(makeCert({ selfSigned: true, daysValid: 90 }));
  const wrongHost = await httpsUrl(makeCert({ ca, daysValid: 90, commonName: 'wrong-host.example', altNames: ['wrong-host.example'] }));

  return {
    caPem: ca.cert,
    http: {
      ok: `${base}/ok`,
      serverError: `${base}/error`,
      redirectChain: `${base}/redirect/3`,
      redirectLoop: `${base}/loop/a`,
      redirectLong: `${base}/redirect/10`,
      slow: `${base}/slow`,
      huge: `${base}/huge`,
    },
    https: { valid, expiring, expired, selfSigned, wrongHost },
    refused: `http://127.0.0.1:${await closedPort()}/`,
    unresolvable: 'http://no-such-host.invalid/',
    hits: () => hits,
    connections: () => connections,
    async close() {
      for (const t of timers) clearTimeout(t);
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              (s as http.Server).closeAllConnections?.();
              s.close(() => r());
            }),
        ),
      );
    },
  };
}
