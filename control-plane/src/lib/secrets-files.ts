import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Reads a secret file from DATA_DIR, creating it (mode 600) with `make()` at first start. */
export function readOrCreateSecretFile(dataDir: string, name: string, make: () => string): string {
  const file = path.join(dataDir, name);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const value = make();
  fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return value;
}

export function loadMasterKey(dataDir: string, configured: string | null): Buffer {
  const b64 = configured ?? readOrCreateSecretFile(dataDir, 'secret.key', () => crypto.randomBytes(32).toString('base64'));
  const key = Buffer.from(b64, 'base64');
  if (key.length !== 32) throw new Error(`${path.join(dataDir, 'secret.key')} must hold 32 bytes in base64`);
  return key;
}

/** Separate keys per purpose from the one master key. */
export const deriveKey = (master: Buffer, purpose: string): Buffer =>
  Buffer.from(crypto.hkdfSync('sha256', master, Buffer.alloc(0), `upfleet:${purpose}`, 32));
