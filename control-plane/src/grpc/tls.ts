// The gRPC server's TLS identity: a private CA and a server certificate made with node-forge at
// first start (unless GRPC_TLS_CERT/KEY are configured). Agents trust ca.pem or pin the fingerprint.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';

export interface GrpcTlsMaterial {
  certPem: string;
  keyPem: string;
  caPem: string;
  caFile: string | null;
  /** SHA-256 of the server certificate (DER), hex, for agents that pin it. */
  fingerprint: string;
  /** SHA-256 of the CA agents trust (DER), hex: the top certificate of caPem. Printed tokens carry it. */
  caFingerprint: string;
}

/** The last certificate of a PEM bundle (the top of a chain). */
function lastCertificate(pem: string): string {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [pem];
  return blocks[blocks.length - 1];
}

function keyPair(): forge.pki.rsa.KeyPair {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const priv = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const pub = forge.pki.setRsaPublicKey(priv.n, priv.e);
  return { privateKey: priv, publicKey: pub };
}

function makeCert(opts: {
  subjectCn: string; keys: forge.pki.rsa.KeyPair; issuer?: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey };
  isCa: boolean; years: number; altNames?: Array<{ type: number; value?: string; ip?: string }>;
}): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = opts.keys.publicKey;
  cert.serialNumber = '01' + crypto.randomBytes(15).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + opts.years * 365 * 86400_000);
  cert.setSubject([{ name: 'commonName', value: opts.subjectCn }, { name: 'organizationName', value: 'Upfleet' }]);
  cert.setIssuer(opts.issuer ? opts.issuer.cert.subject.attributes : [{ name: 'commonName', value: opts.subjectCn }, { name: 'organizationName', value: 'Upfleet' }]);
  const ext: Array<Record<string, unknown>> = [{ name: 'basicConstraints', cA: opts.isCa, critical: true }];
  if (opts.isCa) ext.push({ name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true });
  else {
    ext.push({ name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true });
    ext.push({ name: 'extKeyUsage', serverAuth: true });
    ext.push({ name: 'subjectAltName', altNames: opts.altNames ?? [] });
  }
  ext.push({ name: 'subjectKeyIdentifier' });
  cert.setExtensions(ext);
  cert.sign(opts.issuer?.key ?? opts.keys.privateKey, forge.md.sha256.create());
  return cert;
}

export function fingerprintOf(certPem: string): string {
  return new crypto.X509Certificate(certPem).fingerprint256.replace(/:/g, '').toLowerCase();
}

export function loadOrCreateGrpcTls(dataDir: string, configured: { certFile: string | null; keyFile: string | null }): GrpcTlsMaterial {
  if (configured.certFile && configured.keyFile) {
    const certPem = fs.readFileSync(configured.certFile, 'utf8');
    return {
      certPem, keyPem: fs.readFileSync(configured.keyFile, 'utf8'), caPem: certPem, caFile: null, fingerprint: fingerprintOf(certPem),
      caFingerprint: fingerprintOf(lastCertificate(certPem)),
    };
  }
  const dir = path.join(dataDir, 'grpc-tls');
  const files = { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'server.pem'), key: path.join(dir, 'server-key.pem') };
  if (!fs.existsSync(files.key)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const caKeys = keyPair();
    const ca = makeCert({ subjectCn: 'Upfleet control plane CA', keys: caKeys, isCa: true, years: 10 });
    const serverKeys = keyPair();
    const host = os.hostname();
    const server = makeCert({
      subjectCn: 'upfleet-control-plane', keys: serverKeys, isCa: false, years: 5, issuer: { cert: ca, key: caKeys.privateKey },
      altNames: [{ type: 2, value: 'localhost' }, { type: 2, value: host }, { type: 2, value: 'upfleet-control-plane' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }],
    });
    fs.writeFileSync(files.ca, forge.pki.certificateToPem(ca), { mode: 0o644 });
    fs.writeFileSync(files.cert, forge.pki.certificateToPem(server) + forge.pki.certificateToPem(ca), { mode: 0o644 });
    fs.writeFileSync(files.key, forge.pki.privateKeyToPem(serverKeys.privateKey), { mode: 0o600 });
  }
  const certPem = fs.readFileSync(files.cert, 'utf8');
  const caPem = fs.readFileSync(files.ca, 'utf8');
  return { certPem, keyPem: fs.readFileSync(files.key, 'utf8'), caPem, caFile: files.ca, fingerprint: fingerprintOf(certPem), caFingerprint: fingerprintOf(lastCertificate(caPem)) };
}
