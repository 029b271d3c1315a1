// The private-target rule shared by the control plane (at create time, on the URL's host) and the
// agent (at connect time, on every resolved address, redirect hops included). Both sides must
// agree on what "private" means, so it lives in proto/ like the hash.
import net from 'node:net';

// Private, loopback, link-local (incl. cloud metadata 169.254.169.254), CGNAT, benchmarking,
// multicast and reserved. IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96,
// IPv4-compatible ::/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16) are judged by the
// IPv4 address inside them, or refused whole when that cannot be told apart.
const blocked = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 3],
] as const) blocked.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 96], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['64:ff9b:1::', 48],
  ['100::', 64], ['2002::', 16],
] as const) blocked.addSubnet(net6, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d` or `::ffff:7f00:1`), else null. */
function mappedIpv4(address: string): string | null {
  const s = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(s);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True when a check may not connect to `address` while private targets are refused; non-IPs count as private. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = mappedIpv4(address);
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/**
 * An IPv4 address written the ways inet_aton accepts (decimal `2130706433`, octal `0177.0.0.1`,
 * hex `0x7f.1`, short forms `127.1`) as dotted quads; null when `host` is not such a number.
 */
export function parseLooseIpv4(host: string): string | null {
  const parts = host.split('.');
  if (parts.length < 1 || parts.length > 4 || parts.some((p) => p === '')) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p, 8);
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = Number(p);
    else return null;
    if (!Number.isFinite(n)) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  nums.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/**
 * The create-time check on a URL's host (as `URL.hostname` gives it, brackets and all): loopback
 * and `.localhost` names (a trailing dot too), `.internal`/`.local` names, and every IP literal
 * form of a private address. Names that resolve to private addresses are the agent's to refuse.
 */
export function isPrivateHostname(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  if (h === '' || h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.internal') || h.endsWith('.local')) return true;
  if (net.isIP(h)) return isPrivateAddress(h);
  const loose = parseLooseIpv4(h);
  return loose !== null && isPrivateAddress(loose);
}

/** The failed check's error when a target address is refused: says what and why, in one line. */
export function targetNotAllowedMessage(host: string, address: string): string {
  const shown = host === address ? address : `${host} resolves to ${address}`;
  return `target address not allowed: ${shown} is a private, loopback or link-local address (private targets are refused)`;
}
