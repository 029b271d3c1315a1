// Endpoint bodies. Plan rules (features, region count, endpoint count) are policy: the service checks them after parsing.
import { z } from 'zod';
import { ENDPOINT_STATUSES, FEATURES, type EndpointStatus, type Feature } from '../rest';
import { flag, optionalText, requiredText } from './common';
import { ENDPOINT_SORTS, parseSort } from '../endpoint-list';

/** A monitor target: an absolute http(s) URL without credentials, normalised by the URL parser. */
export const MonitorUrl = requiredText('URL', 2048).transform((raw, ctx) => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'Please enter a valid URL' });
    return z.NEVER;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: 'URL must start with http:// or https://' });
  } else if (!u.hostname) {
    ctx.addIssue({ code: 'custom', message: 'Please enter a valid URL' });
  } else if (u.username || u.password) {
    ctx.addIssue({ code: 'custom', message: 'URL must not contain a username or password' });
  }
  return u.toString();
});

/** Region keys such as `EU-Germany`, de-duplicated; absent or null means "the primary region". */
const regionsError = 'Regions must be a list of region names';
export const RegionKeys = z
  .array(z.string({ error: regionsError }), { error: regionsError })
  .nullish()
  .transform((v) => [...new Set(v ?? [])]);

const featureFlags = Object.fromEntries(FEATURES.map((f) => [f, flag(f, f === 'response_code')])) as Record<
  Feature,
  ReturnType<typeof flag>
>;

export const EndpointCreateBody = z
  .object({
    name: requiredText('Name', 200),
    url: MonitorUrl,
    description: optionalText('Description', 1000),
    ...featureFlags,
    regions: RegionKeys,
  })
  .meta({ id: 'EndpointCreateBody', description: 'POST /api/users/endpoints (response_code defaults to true, the other features to false)' });
export type EndpointCreateBody = z.infer<typeof EndpointCreateBody>;

/** PUT replaces the whole endpoint, so it takes the same body as create. */
export const EndpointUpdateBody = EndpointCreateBody.meta({ id: 'EndpointUpdateBody', description: 'PUT /api/users/endpoints/:id' });
export type EndpointUpdateBody = z.infer<typeof EndpointUpdateBody>;

export const EndpointToggleBody = z
  .object({ monitoring_enabled: z.boolean({ error: 'monitoring_enabled must be true or false' }).optional() })
  .meta({ id: 'EndpointToggleBody', description: 'PATCH /api/users/endpoints/:id/toggle (absent: flip the current state)' });
export type EndpointToggleBody = z.infer<typeof EndpointToggleBody>;

/** Largest page of the endpoint list. */
export const ENDPOINT_PAGE_MAX = 1000;
const pageNumber = (name: string, min: number, max: number) => {
  const error = `${name} must be a whole number from ${min} to ${max}`;
  return z
    .string({ error })
    .regex(/^\d{1,9}$/, error)
    .transform(Number)
    .refine((n) => n >= min && n <= max, error)
    .optional();
};

const sortError = `sort must be one of ${ENDPOINT_SORTS.join(', ')}, with - in front for descending`;
const statusError = `status must be one or more of ${ENDPOINT_STATUSES.join(', ')}, separated by commas`;

export const EndpointListQuery = z
  .object({
    limit: pageNumber('limit', 1, ENDPOINT_PAGE_MAX),
    offset: pageNumber('offset', 0, 100_000_000),
    q: z.string({ error: 'q must be text' }).max(2048, 'q must be at most 2048 characters').optional()
      .meta({ description: 'Name or URL contains this text (case-insensitive)' }),
    status: z
      .string({ error: statusError })
      .transform((s) => s.split(',').map((x) => x.trim()))
      .refine((list) => list.every((x) => (ENDPOINT_STATUSES as readonly string[]).includes(x)), statusError)
      .transform((list) => [...new Set(list)] as EndpointStatus[])
      .optional()
      .meta({ description: `One or more of ${ENDPOINT_STATUSES.join(', ')}, comma separated` }),
    sort: z
      .string({ error: sortError })
      .refine((s) => parseSort(s) !== null, sortError)
      .transform((s) => parseSort(s)!)
      .optional()
      .meta({ description: `${ENDPOINT_SORTS.join(' | ')}; - in front for descending. status puts down first; without sort, oldest endpoint first` }),
  })
  .meta({
    id: 'EndpointListQuery',
    description: `GET /api/users/endpoints-with-uptime: optional search (q), status filter and sort, and paging (oldest endpoint first unless sorted). Without limit and offset the whole list is answered; with either, one page (limit defaults to ${ENDPOINT_PAGE_MAX}) and the X-Total-Count header gives the number of endpoints`,
  });
export type EndpointListQuery = z.infer<typeof EndpointListQuery>;
