// Handling incidents: the detail with its timeline, MTTA/MTTR statistics, and their queries.
import { z } from 'zod';
import { ALERT_PLATFORMS, type IncidentDetail, type IncidentsAcknowledged, type IncidentStats } from '../rest';
import { IncidentAckerResource, IncidentResource } from './responses';

const timestamp = z.string().meta({ description: 'ISO 8601 date-time (UTC)' });

/** An ISO 8601 date-time or milliseconds since 1970. */
const instant = (name: string) =>
  z
    .string({ error: `${name} must be a date-time or milliseconds` })
    .transform((v, ctx) => {
      const t = /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v);
      if (!Number.isFinite(t)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a date-time or milliseconds` });
        return z.NEVER;
      }
      return t;
    });

/** GET /api/users/incidents/stats: incidents opened in [from, to) (default: the last 30 days), optionally of one endpoint. */
export const IncidentStatsQuery = z
  .object({
    from: instant('from').optional(),
    to: instant('to').optional(),
    url_id: z
      .string({ error: 'url_id must be a positive whole number' })
      .regex(/^[1-9]\d{0,15}$/, 'url_id must be a positive whole number')
      .transform(Number)
      .optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from < q.to, { message: 'from must be before to' })
  .meta({ id: 'IncidentStatsQuery', description: 'GET /api/users/incidents/stats' });
export type IncidentStatsQuery = z.infer<typeof IncidentStatsQuery>;

/** POST /api/users/incidents/acknowledge: several incidents at once (a storm's). */
export const IncidentsAcknowledgeBody = z
  .object({
    incident_ids: z
      .array(z.number({ error: 'incident_ids must be incident ids' }).int('incident_ids must be incident ids').positive('incident_ids must be incident ids'), {
        error: 'incident_ids must be a list of incident ids',
      })
      .min(1, 'incident_ids must name at least one incident')
      .max(100, 'incident_ids may name at most 100 incidents'),
  })
  .meta({ id: 'IncidentsAcknowledgeBody', description: 'POST /api/users/incidents/acknowledge' });
export type IncidentsAcknowledgeBody = z.infer<typeof IncidentsAcknowledgeBody>;

export const IncidentsAcknowledgedResource = z
  .object({
    acknowledged: z.array(z.number().int()),
    skipped: z.array(z.object({ incident_id: z.number().int(), reason: z.string() })),
  })
  .meta({ id: 'IncidentsAcknowledged' });

export const IncidentTimelineEntryResource = z
  .object({
    at: timestamp,
    type: z.string().meta({ description: "'opened', 'delivery', 'acknowledged', 'resolved', or an escalation entry ('escalated', 'reminder', 'method_skipped', 'suppressed', …)" }),
    step: z.number().int().nullable(),
    alert_method_id: z.number().int().nullable(),
    platform: z.enum(ALERT_PLATFORMS).nullable(),
    detail: z.string(),
    delivery: z
      .object({
        delivery_id: z.number().int(),
        event: z.string(),
        status: z.enum(['pending', 'delivered', 'failed']),
        attempts: z.number().int(),
        last_error: z.string().nullable().meta({ description: 'The provider\'s last answer, the method\'s secrets masked' }),
        delivered_at: timestamp.nullable(),
      })
      .nullable(),
    by: IncidentAckerResource.nullable(),
  })
  .meta({ id: 'IncidentTimelineEntry' });

export const IncidentDetailResource = IncidentResource.extend({ timeline: z.array(IncidentTimelineEntryResource) }).meta({ id: 'IncidentDetail' });

export const IncidentStatsResource = z
  .object({
    from: timestamp,
    to: timestamp,
    endpoints: z.array(
      z.object({
        url_id: z.number().int(),
        endpoint_name: z.string().nullable(),
        incidents: z.number().int(),
        acknowledged: z.number().int(),
        resolved: z.number().int(),
        mtta_seconds: z.number().nullable().meta({ description: 'Mean time to acknowledge, over the acknowledged incidents' }),
        mttr_seconds: z.number().nullable().meta({ description: 'Mean time to resolve, over the resolved incidents' }),
      }),
    ),
  })
  .meta({ id: 'IncidentStats' });

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [
  Same<z.output<typeof IncidentDetailResource>, IncidentDetail>,
  Same<z.output<typeof IncidentStatsResource>, IncidentStats>,
  Same<z.output<typeof IncidentsAcknowledgedResource>, IncidentsAcknowledged>,
] = [true, true, true];
void sameShapes;
