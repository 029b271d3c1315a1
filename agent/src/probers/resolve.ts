// Name resolution and the private-target guard shared by every probe.
// DNS goes through c-ares (dns.promises.Resolver), not getaddrinfo, so thousands of checks do not
// queue behind libuv's 4-thread pool; /etc/hosts and RFC 6761 special names are answered locally.
import { promises as dnsp } from 'node:dns';
import { readFile } from 'node:fs/promises';
import net from 'node:net';

export type ResolveOutcome =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; error: string };

export interface HostResolver {
  resolve(host: string): Promise<ResolveOutcome>;
}

export interface ResolverOptions {
  hostsFile?: string;
  /** per-query timeout of c-ares, ms */
  timeoutMs?: number;
  tries?: number;
}

const HOSTS_TTL_MS = 30_000;

function parseHosts(text: string): Map<string, { address: string; family: 4 | 6 }> {
  const map = new Map<string, { address: string; family: 4 | 6 }>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const [address, ...names] = line.split(/\s+/);
    const family = net.isIP(address);
    if (!family) continue;
    for (const name of names) {
      const key = name.toLowerCase();
      const prev = map.get(key);
      // Prefer IPv4 when a name has both, like most resolvers' default order for checks.
      if (!prev || (prev.family === 6 && family === 4)) map.set(key, { address, family: family as 4 | 6 });
    }
  }
  return map;
}

/** Strips the brackets URL.hostname keeps around IPv6 literals. */
export function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function createHostResolver(opts: ResolverOptions = {}): HostResolver {
  const resolver = new dnsp.Resolver({ timeout: opts.timeoutMs ?? 2000, tries: opts.tries ?? 2 });
  const hostsFile = opts.hostsFile ?? '/etc/hosts';
  let hosts: Map<string, { address: string; family: 4 | 6 }> | undefined;
  let hostsReadAt = 0;

  async function fromHosts(name: string): Promise<{ address: string; family: 4 | 6 } | undefined> {
    if (!hosts || Date.now() - hostsReadAt > HOSTS_TTL_MS) {
      hostsReadAt = Date.now();
      hosts = parseHosts(await readFile(hostsFile, 'utf8').catch(() => ''));
    }
    return hosts.get(name);
  }

  return {
    async resolve(hostInput) {
      const host = bareHost(hostInput).toLowerCase().replace(/\.$/, '');
      const literal = net.isIP(host);
      if (literal) return { ok: true, address: host, family: literal as 4 | 6 };
      if (!host) return { ok: false, error: 'empty host name' };
      // RFC 6761: these must never leave the machine.
      if (host.endsWith('.invalid') || host === 'invalid') return { ok: false, error: `host not found: ${host}` };
      if (host === 'localhost' || host.endsWith('.localhost')) return { ok: true, address: '127.0.0.1', family: 4 };
      const local = await fromHosts(host);
      if (local) return { ok: true, ...local };
      try {
        const v4 = await resolver.resolve4(host);
        if (v4.length) return { ok: true, address: v4[0], family: 4 };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENODATA' && code !== 'ENOTFOUND') return { ok: false, error: describeDnsError(host, err) };
      }
      try {
        const v6 = await resolver.resolve6(host);
        if (v6.length) return { ok: true, address: v6[0], family: 6 };
        return { ok: false, error: `host not found: ${host}` };
      } catch (err) {
        return { ok: false, error: describeDnsError(host, err) };
      }
    },
  };
}

function describeDnsError(host: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOTFOUND':
    case 'ENODATA':
      return `host not found: ${host}`;
    case 'ETIMEOUT':
      return `DNS timeout resolving ${host}`;
    case 'ESERVFAIL':
      return `DNS server failure resolving ${host}`;
    case 'ECONNREFUSED':
      return `DNS server refused the query for ${host}`;
    default:
      return `DNS error resolving ${host}: ${code ?? (err as Error).message}`;
  }
}

// The private-target rule is shared with the control plane (proto/targets.ts).
import { isPrivateAddress, targetNotAllowedMessage } from '@upfleet/proto/targets';

export { isPrivateAddress, targetNotAllowedMessage };

/**
 * The error of a check refused at connect time, or null when `address` may be dialled. Runs on
 * every hop's resolved address, so a public name redirecting to a private one is refused too.
 */
export function refusedTarget(
  opts: { allowPrivateTargets: boolean; isPrivate?: (address: string) => boolean }, host: string, address: string,
): string | null {
  if (opts.allowPrivateTargets) return null;
  return (opts.isPrivate ?? isPrivateAddress)(address) ? targetNotAllowedMessage(host, address) : null;
}
