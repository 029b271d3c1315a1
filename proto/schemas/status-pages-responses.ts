// What the status-page routes answer, as zod schemas for the OpenAPI document; each is
// checked against its TypeScript type in proto/rest.ts at compile time, like responses.ts.
import { z } from 'zod';
import {
  COMPONENT_STATES, REPORT_IMPACTS, REPORT_STATUSES,
  type DomainVerification as DomainVerificationShape, type MaintenanceWindow, type PublicStatus, type StatusPage, type StatusReport,
} from '../rest';

const timestamp = z.string().meta({ description: 'ISO 8601 date-time (UTC)' });
const state = z.enum(COMPONENT_STATES);
const affected = z.array(z.object({ component_id: z.number().int(), impact: z.enum(REPORT_IMPACTS) }));
const updates = z.array(z.object({ update_id: z.number().int(), status: z.enum(REPORT_STATUSES), message: z.string(), created_at: timestamp })).meta({ description: 'Newest first' });

export const StatusPageResource = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    title: z.string(),
    description: z.string(),
    published: z.boolean(),
    has_password: z.boolean().meta({ description: 'The password itself is stored hashed and never answered' }),
    custom_domain: z.string().nullable().meta({ description: 'The custom domain set; served only once verified' }),
    custom_domain_verified: z.boolean().meta({ description: 'The TXT record `_upfleet-challenge.{custom_domain}` = custom_domain_token was found (checked again daily)' }),
    custom_domain_token: z.string().meta({ description: 'The value of the TXT record that proves the custom domain' }),
    timezone: z.string(),
    auto_reports: z.boolean(),
    components: z.array(z.object({ component_id: z.number().int(), name: z.string(), endpoint_id: z.number().int().nullable(), group: z.string().nullable(), position: z.number().int() })),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'StatusPage' });

export const StatusReportResource = z
  .object({
    report_id: z.number().int(),
    page_id: z.number().int(),
    title: z.string(),
    status: z.enum(REPORT_STATUSES),
    affected,
    updates,
    created_at: timestamp,
    resolved_at: timestamp.nullable(),
    incident_id: z.number().int().nullable().meta({ description: 'The alerting incident an automatic report follows' }),
  })
  .meta({ id: 'StatusReport' });

export const MaintenanceWindowResource = z
  .object({
    id: z.number().int(),
    title: z.string(),
    message: z.string(),
    endpoint_ids: z.array(z.number().int()),
    starts_at: timestamp,
    ends_at: timestamp,
    state: z.enum(['scheduled', 'in_progress', 'completed']).meta({ description: 'Follows the clock' }),
  })
  .meta({ id: 'MaintenanceWindow' });

export const PublicStatusResource = z
  .object({
    page: z.object({ slug: z.string(), title: z.string(), description: z.string(), timezone: z.string() }),
    overall: state,
    components: z.array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        group: z.string().nullable(),
        status: state,
        uptime_90d: z.number().nullable(),
        days: z.array(z.object({ date: z.string(), uptime: z.number().nullable().meta({ description: 'null: no data that day' }), reports: z.array(z.object({ report_id: z.number().int(), title: z.string() })) })),
      }),
    ),
    reports: z.array(z.object({ report_id: z.number().int(), title: z.string(), status: z.enum(REPORT_STATUSES), affected, updates, created_at: timestamp, resolved_at: timestamp.nullable() })),
    maintenance: z.array(
      z.object({ id: z.number().int(), title: z.string(), message: z.string(), starts_at: timestamp, ends_at: timestamp, state: z.enum(['scheduled', 'in_progress', 'completed']), components: z.array(z.number().int()) }),
    ),
    detected: z
      .array(z.object({ component_ids: z.array(z.number().int()), impact: z.enum(['major_outage', 'degraded']), title: z.string(), since: timestamp }))
      .meta({ description: 'Ongoing outages the monitoring found that no open report covers (e.g. one that began before the page existed)' }),
    generated_at: timestamp,
  })
  .meta({ id: 'PublicStatus' });

export const SlugAvailability = z.object({ slug: z.string(), available: z.boolean(), error: z.string().nullable() }).meta({ id: 'SlugAvailability' });
export const StatusPageDeleted = z.object({ id: z.number().int() }).meta({ id: 'StatusPageDeleted' });
export const StatusReportDeleted = z.object({ report_id: z.number().int() }).meta({ id: 'StatusReportDeleted' });
export const SubscriberList = z
  .object({
    count: z.number().int().meta({ description: 'Confirmed subscribers' }),
    subscribers: z.array(z.object({ id: z.number().int(), email: z.string(), confirmed: z.boolean(), created_at: timestamp, confirmed_at: timestamp.nullable() })),
  })
  .meta({ id: 'SubscriberList' });
export const SubscribeResult = z.object({ message: z.string() }).meta({ id: 'SubscribeResult' });
export const DomainVerification = z
  .object({
    found: z.boolean().meta({ description: 'The TXT record with the page\'s token was found now' }),
    custom_domain: z.string(),
    custom_domain_verified: z.boolean().meta({ description: 'The page serves its custom domain' }),
    record_name: z.string().meta({ description: 'The TXT record to create: _upfleet-challenge.{custom_domain}' }),
    record_value: z.string().meta({ description: 'Its value: the page\'s custom_domain_token' }),
  })
  .meta({ id: 'DomainVerification' });

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Out<S extends z.ZodType> = z.output<S>;
const sameShapes: [
  Same<Out<typeof StatusPageResource>, StatusPage>,
  Same<Out<typeof StatusReportResource>, StatusReport>,
  Same<Out<typeof MaintenanceWindowResource>, MaintenanceWindow>,
  Same<Out<typeof PublicStatusResource>, PublicStatus>,
  Same<Out<typeof DomainVerification>, DomainVerificationShape>,
] = [true, true, true, true, true];
void sameShapes;
