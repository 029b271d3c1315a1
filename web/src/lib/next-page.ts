// Where sign-in and sign-up go afterwards: the page that sent the person there (an invitation
// link, a protected page), never another site.
import { useSearchParams } from 'react-router-dom';

/** A same-site path such as /invitations/abc; anything else (//evil.example, https://…) is null. */
export function safeNext(raw: unknown): string | null {
  return typeof raw === 'string' && /^\/(?![/\\])/.test(raw) ? raw : null;
}

/** `?next=` (it survives a reload and the switch between sign-in and sign-up); null: the
 *  dashboard. Only a page that asks for it (the join page) sets it: after a sign-out the next
 *  sign-in still starts on the dashboard. */
export function useNextPage(): string | null {
  const [params] = useSearchParams();
  return safeNext(params.get('next'));
}

/** `path` carrying the next page along (for the links between sign-in and sign-up). */
export const withNext = (path: string, next: string | null): string =>
  next ? `${path}${path.includes('?') ? '&' : '?'}next=${encodeURIComponent(next)}` : path;
