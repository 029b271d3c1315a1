// gRPC client for the AgentService: TLS trusting a CA file, the system roots, or exactly one
// pinned server certificate (the control plane's self-generated one); plaintext only when asked.
import { X509Certificate } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { grpc, loadAgentService, type AgentServiceClient } from '@upfleet/proto';
import type { AgentTls } from '../config';
import { LinkFatalError } from './errors';

const CLIENT_OPTIONS: grpc.ClientOptions = {
  'grpc.keepalive_time_ms': 20_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  'grpc.max_send_message_length': 64 * 1024 * 1024,
};

function splitHostPort(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(address.slice(i + 1)) };
}

const normalizeFp = (fp: string): string => fp.replace(/:/g, '').toUpperCase();

/** The name TLS is told when the control plane is dialled by IP address (SNI may not carry an IP: DEP0123). */
const IP_TARGET_NAME = 'upfleet-control-plane';

/** Reads the server's certificate chain once (trusting nothing yet), so it can be checked against a pin. */
function fetchServerCert(address: string, timeoutMs = 5000): Promise<tls.DetailedPeerCertificate> {
  const { host, port } = splitHostPort(address);
  return new Promise((resolve, reject) => {
    const sock = tls.connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['h2'], servername: net.isIP(host) ? '' : host });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(Object.assign(new Error(`TLS handshake with ${address} timed out`), { code: grpc.status.UNAVAILABLE }));
    }, timeoutMs);
    sock.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = sock.getPeerCertificate(true);
      sock.destroy();
      resolve(cert);
    });
    sock.once('error', (e: Error) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`cannot reach ${address}: ${e.message}`), { code: grpc.status.UNAVAILABLE }));
    });
  });
}

/** The certificates a server presented, leaf first. */
function chainOf(cert: tls.DetailedPeerCertificate): tls.DetailedPeerCertificate[] {
  const out: tls.DetailedPeerCertificate[] = [];
  let c: tls.DetailedPeerCertificate | undefined = cert;
  while (c?.raw && !out.includes(c)) {
    out.push(c);
    c = c.issuerCertificate;
  }
  return out;
}

const toPem = (raw: Buffer): string => new X509Certificate(raw).toString();

/**
 * One-line join: the CA comes from the control plane's own TLS handshake and is trusted only when
 * its SHA-256 is the one the token carries; it is then kept in the data dir (0600) for later starts.
 */
async function joinedCa(address: string, mode: { caFingerprint: string; caFile: string }): Promise<Buffer> {
  const want = normalizeFp(mode.caFingerprint);
  try {
    const saved = readFileSync(mode.caFile, 'utf8');
    if (normalizeFp(new X509Certificate(saved).fingerprint256) === want) return Buffer.from(saved);
  } catch {
    // not fetched yet
  }
  const presented = chainOf(await fetchServerCert(address));
  const ca = presented.find((c) => normalizeFp(c.fingerprint256) === want);
  if (!ca) {
    throw new LinkFatalError(
      "the control plane's certificate is not trusted: its CA does not match the fingerprint in the token; " +
        "use a token from 'upfleet agent token create' on this control plane or pass --ca-file",
    );
  }
  const pem = toPem(ca.raw);
  writeFileSync(mode.caFile, pem, { mode: 0o600 });
  chmodSync(mode.caFile, 0o600);
  return Buffer.from(pem);
}

/**
 * Checks the server certificate against the host actually dialled. With an IP address the TLS
 * layer is given a name instead (no DEP0123 warning), so the IP is checked here.
 */
function identityCheck(host: string): grpc.VerifyOptions['checkServerIdentity'] {
  return (_name, cert) => tls.checkServerIdentity(host, cert);
}

async function credentialsFor(address: string, mode: AgentTls): Promise<grpc.ChannelCredentials> {
  const { host } = splitHostPort(address);
  const verify: grpc.VerifyOptions = net.isIP(host) ? { checkServerIdentity: identityCheck(host) } : {};
  switch (mode.mode) {
    case 'insecure':
      return grpc.credentials.createInsecure();
    case 'system':
      return grpc.credentials.createSsl(null, null, null, verify);
    case 'ca':
      return grpc.credentials.createSsl(readFileSync(mode.caFile), null, null, verify);
    case 'join':
      return grpc.credentials.createSsl(await joinedCa(address, mode), null, null, verify);
    case 'pin': {
      const cert = await fetchServerCert(address);
      if (normalizeFp(cert.fingerprint256) !== mode.fingerprint256) {
        throw new LinkFatalError(
          `control plane certificate fingerprint ${normalizeFp(cert.fingerprint256)} does not match the pinned ${mode.fingerprint256}`,
        );
      }
      // Trust exactly the chain this server presented (its own CA, or the pinned certificate when
      // it is self-signed); the fingerprint check below still runs on every real connection.
      let top: tls.DetailedPeerCertificate = cert;
      while (top.issuerCertificate && top.issuerCertificate !== top && top.issuerCertificate.raw) top = top.issuerCertificate;
      const root = new X509Certificate(top.raw);
      const pinCheck = (_host: string, peer: tls.PeerCertificate): Error | undefined =>
        normalizeFp(peer.fingerprint256) === mode.fingerprint256
          ? undefined
          : new Error('control plane certificate does not match the pinned fingerprint');
      return grpc.credentials.createSsl(root.checkIssued(root) ? Buffer.from(root.toString()) : null, null, null, {
        checkServerIdentity: pinCheck,
      });
    }
  }
}

export async function createAgentClient(address: string, mode: AgentTls): Promise<AgentServiceClient> {
  const Ctor = loadAgentService();
  const { host } = splitHostPort(address);
  const options = mode.mode !== 'insecure' && net.isIP(host) ? { ...CLIENT_OPTIONS, 'grpc.ssl_target_name_override': IP_TARGET_NAME } : CLIENT_OPTIONS;
  // The loaded constructor is typed as a generic ServiceClient first; the typed shape is ours.
  return new Ctor(address, await credentialsFor(address, mode), options) as unknown as AgentServiceClient;
}

/** `authorization: Bearer <agent_id>.<agent_secret>` on every call but Register. */
export function agentMetadata(agentId: string, secret: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${agentId}.${secret}`);
  return md;
}
