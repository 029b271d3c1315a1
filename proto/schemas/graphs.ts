// Query of GET /api/graphs/endpoint/:id: a window from `hours` back to now, or an explicit timeFrom..timeTo.
import { z } from 'zod';

const rangeError = 'timeFrom and timeTo must be millisecond timestamps with timeFrom before timeTo';
/** A query value as sent (one string) or already a number; a repeated parameter (an array) is refused. */
const queryNumber = (message: string) =>
  z
    .union([z.string(), z.number()], { error: message })
    .optional()
    .transform((v) => (v === undefined ? undefined : typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v)));

export const GraphQuery = z
  .object({
    hours: queryNumber('hours must be a positive number'),
    timeFrom: queryNumber(rangeError),
    timeTo: queryNumber(rangeError),
  })
  .superRefine((q, ctx) => {
    if (q.timeFrom !== undefined || q.timeTo !== undefined) {
      const from = q.timeFrom ?? Number.NaN;
      const to = q.timeTo ?? Number.NaN;
      if (!Number.isFinite(from) || !Number.isFinite(to) || from < 0 || to <= from) ctx.addIssue({ code: 'custom', message: rangeError });
    } else if (q.hours !== undefined && !(Number.isFinite(q.hours) && q.hours > 0)) {
      ctx.addIssue({ code: 'custom', message: 'hours must be a positive number' });
    }
  })
  .meta({ id: 'GraphQuery', description: 'GET /api/graphs/endpoint/:id query (default: the last hour)' });
export type GraphQuery = z.infer<typeof GraphQuery>;
