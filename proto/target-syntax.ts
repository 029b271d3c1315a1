// The syntax of a tcp target (`host:port`), a DNS name and a DNS resolver: one rule for the API's
// validation (schemas/endpoints.ts) and the agent's probers. Pure and zod-free, so the agent
// executable does not bundle zod (600 kB of script, ~10 MB of its heap).

/** `host:port` of a TCP check: a name, an IPv4 address or a bracketed IPv6 address, and a port 1-65535. */
export function parseHostPort(raw: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_.-]{1,253})):(\d{1,5})$/.exec(raw.trim());
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1] ? `[${m[1].toLowerCase()}]` : m[2].toLowerCase(), port };
}

/** A DNS name (labels of letters, digits, hyphens, underscores), trailing dot dropped. */
export function isDnsName(raw: string): boolean {
  const n = raw.replace(/\.$/, '');
  return n.length > 0 && n.length <= 253 && n.split('.').every((l) => /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(l));
}

/** A DNS resolver: an IPv4 or IPv6 address, with an optional port (`1.1.1.1`, `1.1.1.1:53`, `[::1]:5353`). */
export function parseResolver(raw: string): { address: string; port: number } | null {
  const s = raw.trim();
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec(s);
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(s) ?? /^([0-9A-Fa-f]*:[0-9A-Fa-f:.]*)()$/.exec(s);
  const m = v4 ?? v6;
  if (!m) return null;
  if (v4 && m[1].split('.').some((o) => Number(o) > 255 || (o.length > 1 && o.startsWith('0')))) return null;
  const port = m[2] ? Number(m[2]) : 53;
  if (port < 1 || port > 65535) return null;
  return { address: m[1].toLowerCase(), port };
}
