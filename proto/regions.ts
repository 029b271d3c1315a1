// How a region is named: its key ('EU-Germany', in endpoints, assignments and results) and its
// label ('EU - Germany', in messages). Server, CLI and web read these; browser-safe.
import type { PlanContext } from './plan';

export const regionKey = (r: { region: string; city: string }): string => `${r.region}-${r.city}`;
export const regionLabel = (r: { region: string; city: string }): string => `${r.region} - ${r.city}`;
/** A key back to its label ('EU-Germany' → 'EU - Germany'); the first '-' splits region from city. */
export function regionKeyLabel(key: string): string {
  const i = key.indexOf('-');
  return i < 0 ? key : `${key.slice(0, i)} - ${key.slice(i + 1)}`;
}

/** The primary region as the plan policy needs it (no primary region: none). */
export function planContextOf(primary: { region: string; city: string } | undefined | null): PlanContext {
  return { primaryRegion: primary ? { key: regionKey(primary), label: regionLabel(primary) } : null };
}
