// Data taken out of Upfleet: an endpoint's raw results as a file.
import { z } from 'zod';

const timeError = 'from and to must be ISO 8601 dates or millisecond timestamps, with from before to';

/** A query time: a millisecond timestamp or an ISO 8601 date; NaN when it is neither (refined below). */
const queryTime = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : /^\d{1,15}$/.test(v) ? Number(v) : /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : Number.NaN));

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const ResultsExportQuery = z
  .object({
    from: queryTime,
    to: queryTime,
    format: z.enum(EXPORT_FORMATS, { error: 'format must be csv or ndjson' }).default('csv'),
  })
  .superRefine((q, ctx) => {
    const bad = (t: number | undefined) => t !== undefined && !(Number.isFinite(t) && t >= 0);
    if (bad(q.from) || bad(q.to) || (q.from !== undefined && q.to !== undefined && q.to <= q.from)) ctx.addIssue({ code: 'custom', message: timeError });
  })
  .meta({ id: 'ResultsExportQuery', description: 'GET /api/users/endpoints/:id/results (default: everything the plan keeps, as CSV)' });
export type ResultsExportQuery = z.infer<typeof ResultsExportQuery>;

/** The columns of an exported result, in file order (CSV header, NDJSON keys). */
export const RESULT_EXPORT_COLUMNS = [
  'time', 'region', 'check', 'ok', 'phase', 'status_code', 'dns_ms', 'connect_ms', 'tls_ms', 'ttfb_ms', 'total_ms', 'error',
] as const;

/** GET /api/users/endpoints/:id/badge and POST …/badge/rotate (editors): the README badges of an endpoint. */
export const BadgeResource = z
  .object({
    badge_token: z.string().meta({ description: 'The unguessable key in the badge URLs; rotating replaces it and the old one answers 404 at once' }),
    status_url: z.string().meta({ description: 'GET: the live status as an SVG badge' }),
    uptime_urls: z.object({ '24h': z.string(), '7d': z.string(), '30d': z.string() }).meta({ description: 'GET: uptime over the window as an SVG badge (maintenance left out)' }),
    markdown: z.string().meta({ description: 'A snippet to paste into a README' }),
  })
  .meta({ id: 'BadgeResource' });
export type BadgeResource = z.infer<typeof BadgeResource>;
