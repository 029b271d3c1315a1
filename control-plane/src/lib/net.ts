import net from 'node:net';

// The private-target rule (isPrivateAddress, isPrivateHostname) is shared with the agent: proto/targets.ts.

/** The key a client address is rate-limited under: an IPv4 address as is (also when IPv4-mapped),
 *  an IPv6 address by its /64, since one subscriber usually holds a whole /64 and could rotate
 *  through it to get a fresh allowance per request. */
export function clientKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '').toLowerCase();
  if (net.isIPv4(bare)) return bare;
  if (!net.isIPv6(bare)) return bare;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1];
  return `${expandIpv6(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros ('::' expanded; an embedded
 *  dotted IPv4 tail becomes two groups). */
function expandIpv6(ip: string): string[] {
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill: string[] = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16).toString(16));
}
