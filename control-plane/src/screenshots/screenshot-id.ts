// A screenshot's id and what its bytes are. The id is derived from the result and the screenshot's
// name, so a re-sent batch names the same screenshots (stored once) and the ClickHouse row that
// references them (results/row-encoding.ts) agrees with the store without asking it.
import { createHash } from 'node:crypto';

export type ScreenshotMime = 'image/png' | 'image/webp';

export const screenshotId = (resultId: string, name: string): string =>
  createHash('sha256').update(resultId).update('\0').update(name).digest('hex').slice(0, 32);

/** Ids are 32 lowercase hex digits; anything else in a URL is not one. */
export const isScreenshotId = (s: string): boolean => /^[0-9a-f]{32}$/.test(s);

/** The image type its magic bytes say (PNG or WebP), else null: a declared mime is not trusted. */
export function sniffImage(data: Uint8Array): ScreenshotMime | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (data.length >= 8 && png.every((b, i) => data[i] === b)) return 'image/png';
  const ascii = (from: number, to: number) => Buffer.from(data.subarray(from, to)).toString('latin1');
  if (data.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return null;
}

export const extensionOf = (mime: ScreenshotMime): 'png' | 'webp' => (mime === 'image/png' ? 'png' : 'webp');
