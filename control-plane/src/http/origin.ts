// The address a public answer names itself by (the install script, Atom feed links): PUBLIC_URL,
// else the request's Host, accepted only in strict hostname[:port] syntax so nothing a client sends
// ends up in a shell line or a link; answers built from Host say `Vary: Host`.
import net from 'node:net';
import type { Request, Response } from 'express';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST_RE = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])(?::(\\d{1,5}))?$`);

/** `host[:port]` from a Host header, lower case, or null when it is not strictly that. */
export function validHost(raw: string | undefined): string | null {
  const host = (raw ?? '').trim().toLowerCase();
  if (host.length === 0 || host.length > 260) return null;
  const m = HOST_RE.exec(host);
  if (!m) return null;
  if (m[1] !== undefined && Number(m[1]) > 65535) return null;
  if (host.startsWith('[') && !net.isIPv6(host.slice(1, host.indexOf(']')))) return null;
  return host;
}

/** This server's origin for a public answer: PUBLIC_URL, else protocol + validated Host (null: refuse). */
export function publicOrigin(req: Request, res: Response, publicUrl: string | null | undefined): string | null {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  res.vary('Host');
  const host = validHost(req.get('host'));
  return host ? `${req.protocol}://${host}` : null;
}

/** Whether an origin's host is this machine (plain HTTP there crosses no network). */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const h = new URL(origin).hostname.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || (net.isIPv4(h) && h.startsWith('127.'));
  } catch {
    return false;
  }
}
