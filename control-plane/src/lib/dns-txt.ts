// TXT lookups for custom-domain proof, through the operator's DNS_RESOLVERS when set (else the
// system's resolver). A definite "no such record" is told apart from a failed lookup, so a resolver
// outage never takes a verified domain away.
import { promises as dnsp } from 'node:dns';

export type TxtAnswer = { ok: true; records: string[] } | { ok: false; missing: boolean; error: string };
export type TxtLookup = (name: string) => Promise<TxtAnswer>;

/** Answers that mean the name or its TXT records do not exist. */
const MISSING = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

export function createTxtLookup(servers: string[], timeoutMs = 3000): TxtLookup {
  return async (name) => {
    const resolver = new dnsp.Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers.length) resolver.setServers(servers);
    try {
      return { ok: true, records: (await resolver.resolveTxt(name)).map((parts) => parts.join('')) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      return { ok: false, missing: MISSING.has(code), error: code || (err as Error).message };
    }
  };
}
