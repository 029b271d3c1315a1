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

// Private, loopback, link-local (incl. cloud metadata 169.254.169.254), CGNAT, multicast, reserved.
const blocked = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 3],
] as const) blocked.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['100::', 64],
] as const) blocked.addSubnet(net6, prefix, 'ipv6');

/** True when a check may not connect to `address` while private targets are disallowed. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export const TARGET_NOT_ALLOWED = 'target address not allowed';
