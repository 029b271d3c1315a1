// Reports: the SLA report's query and the SLO and report answers (OpenAPI is generated from these).
import { z } from 'zod';
import type { ReportSchedule, SlaReport, SloStatus } from '../rest';
import { mailboxAddress } from './common';

/** Mailboxes one monthly report may go to. */
export const REPORT_RECIPIENTS_MAX = 20;

/** PUT /api/users/reports/schedule: plain mailboxes only (a report mails addresses its admins typed). */
export const ReportScheduleBody = z
  .object({
    enabled: z.boolean({ error: 'enabled must be true or false' }),
    recipients: z.array(mailboxAddress('Recipient'), { error: 'recipients must be a list of email addresses' })
      .max(REPORT_RECIPIENTS_MAX, `At most ${REPORT_RECIPIENTS_MAX} recipients`)
      .transform((list) => [...new Set(list)]),
  })
  .superRefine((b, ctx) => {
    if (b.enabled && b.recipients.length === 0) ctx.addIssue({ code: 'custom', message: 'Add at least one recipient to send the monthly report', path: ['recipients'] });
  })
  .meta({ id: 'ReportScheduleBody', description: 'PUT /api/users/reports/schedule' });
export type ReportScheduleBody = z.infer<typeof ReportScheduleBody>;

export const ReportScheduleResource = z
  .object({
    enabled: z.boolean(),
    recipients: z.array(z.string()),
    timezone: z.string().meta({ description: "The workspace owner's zone: the report goes out on the 1st there" }),
    next_send_at: z.string().nullable().meta({ description: 'When the next report goes out (ISO 8601, UTC); null when off' }),
  })
  .meta({ id: 'ReportSchedule' });

const DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const rangeValue = (name: string) =>
  z.string({ error: `${name} is required: a date (YYYY-MM-DD, in your timezone) or an ISO 8601 time` })
    .regex(DATE_OR_TIME, `${name} must be a date (YYYY-MM-DD, in your timezone) or an ISO 8601 time`);

/** GET /api/users/reports/sla: `to` as a date includes that whole day. */
export const SlaReportQuery = z
  .object({
    from: rangeValue('from'),
    to: rangeValue('to'),
    endpoint_ids: z
      .string({ error: 'endpoint_ids must be a comma-separated list of endpoint ids' })
      .regex(/^[1-9]\d{0,15}(,[1-9]\d{0,15}){0,999}$/, 'endpoint_ids must be a comma-separated list of endpoint ids')
      .transform((s) => [...new Set(s.split(',').map(Number))])
      .optional(),
    group_by: z.enum(['endpoint', 'region', 'month'], { error: 'group_by must be endpoint, region or month' }).default('endpoint'),
    format: z.enum(['json', 'csv'], { error: 'format must be json or csv' }).default('json'),
  })
  .meta({ id: 'SlaReportQuery', description: 'GET /api/users/reports/sla (from and to: dates in your timezone, or ISO times)' });
export type SlaReportQuery = z.infer<typeof SlaReportQuery>;

const timestamp = z.string().meta({ description: 'ISO 8601 date-time (UTC)' });
const minutes = z.number().nullable();

export const SloResource = z
  .object({
    url_id: z.number().int(),
    slo_target: z.number().nullable(),
    slo_window_days: z.number().int(),
    from: timestamp,
    to: timestamp,
    uptime_percentage: z.number().nullable(),
    error_budget: z.object({ allowed_minutes: z.number(), used_minutes: z.number(), remaining_minutes: z.number() }).nullable(),
    burn_rate_1h: z.number().nullable(),
    burn_rate_24h: z.number().nullable(),
    budget_exhausted_at: timestamp.nullable(),
    burn_down: z.array(z.tuple([z.number(), z.number()])),
  })
  .meta({ id: 'Slo' });

const SlaFiguresShape = {
  checks: z.number().int(),
  uptime_percentage: z.number().nullable().meta({ description: 'null: no data (never 100 %)' }),
  downtime_minutes: minutes,
  incidents: z.number().int(),
  longest_outage_minutes: minutes,
  mttr_minutes: minutes,
  mtta_minutes: minutes,
};

export const SlaReportResource = z
  .object({
    from: timestamp,
    to: timestamp,
    timezone: z.string(),
    group_by: z.enum(['endpoint', 'region', 'month']),
    retention: z.object({ days: z.number().int(), clamped: z.boolean(), requested_from: timestamp }),
    rows: z.array(z.object({
      url_id: z.number().int(), name: z.string(), region: z.string().nullable(), month: z.string().nullable(), ...SlaFiguresShape,
    })),
    totals: z.object(SlaFiguresShape),
    maintenance: z.array(z.object({ id: z.number().int(), title: z.string(), endpoint_ids: z.array(z.number().int()), starts_at: timestamp, ends_at: timestamp })),
  })
  .meta({ id: 'SlaReport' });

// Compile-time: each schema's output is exactly its REST type.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [Same<z.output<typeof SloResource>, SloStatus>, Same<z.output<typeof SlaReportResource>, SlaReport>, Same<z.output<typeof ReportScheduleResource>, ReportSchedule>] = [true, true, true];
void sameShapes;
