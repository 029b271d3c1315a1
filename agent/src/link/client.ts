// gRPC client for the AgentService: TLS trusting a CA file, the system roots, or exactly one
// pinned server certificate (the control plane's self-generated one); plaintext only when asked.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** Reads the server's certificate chain once, so the chain it presents can be the only root. */
function fetchServerCert(address: string, timeoutMs = 5000): Promise<tls.DetailedPeerCertificate> {
  const { host, port } = splitHostPort(address);
  return new Promise((resolve, reject) => {
    const sock = tls.connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['h2'], servername: undefined });
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
    sock.once('error', (e) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`cannot reach ${address}: ${e.message}`), { code: grpc.status.UNAVAILABLE }));
    });
  });
}

async function credentialsFor(address: string, mode: AgentTls): Promise<grpc.ChannelCredentials> {
  switch (mode.mode) {
    case 'insecure':
      return grpc.credentials.createInsecure();
    case 'system':
      return grpc.credentials.createSsl();
    case 'ca':
      return grpc.credentials.createSsl(readFileSync(mode.caFile));
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
  // The loaded constructor is typed as a generic ServiceClient first; the typed shape is ours.
  return new Ctor(address, await credentialsFor(address, mode), CLIENT_OPTIONS) as unknown as AgentServiceClient;
}

/** `authorization: Bearer <agent_id>.<agent_secret>` on every call but Register. */
export function agentMetadata(agentId: string, secret: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${agentId}.${secret}`);
  return md;
}
