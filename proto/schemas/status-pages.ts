// Status pages, their incident reports and scheduled maintenance: one schema per body,
// each failure carrying its message. The plan limit (max_status_pages) is policy: the service checks it.
import { z } from 'zod';
import { REPORT_IMPACTS, REPORT_STATUSES } from '../rest';
import { timeZoneField, flag, mailboxAddress, optionalText, requiredText } from './common';

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{1,46}[a-z0-9])$/;

/** Slugs that name our own routes or invite impersonation: refused for any page. */
export const RESERVED_SLUGS: readonly string[] = [
  'admin', 'api', 'app', 'assets', 'auth', 'billing', 'blog', 'dashboard', 'docs', 'download', 'downloads', 'feed', 'help',
  'login', 'logout', 'mail', 'new', 'pricing', 'settings', 'signup', 'static', 'status', 'support', 'upfleet', 'www',
];

export const StatusPageSlug = z
  .string({ error: 'Slug is required' })
  .trim()
  .toLowerCase()
  .min(1, 'Slug is required')
  .refine((s) => SLUG_RE.test(s), 'Slug must be 3 to 48 lowercase letters, digits or hyphens, starting and ending with a letter or digit')
  .refine((s) => !RESERVED_SLUGS.includes(s), 'This slug is reserved. Please choose another one.');

const HOSTNAME_RE = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const customDomain = z
  .string({ error: 'Custom domain must be a host name such as status.example.com' })
  .trim()
  .toLowerCase()
  .nullish()
  .transform((v) => (v ? v : null))
  .refine((v) => v === null || HOSTNAME_RE.test(v), 'Custom domain must be a host name such as status.example.com');

const idRef = (what: string) => z.number({ error: `${what} must be a number` }).int(`${what} must be a number`).positive(`${what} must be a number`);

export const StatusComponentInput = z.object({
  /** An existing component's id keeps it (and the reports that name it); absent: a new component. */
  component_id: idRef('Component id').nullish().transform((v) => v ?? null),
  name: requiredText('Component name', 100),
  endpoint_id: idRef('Endpoint id').nullish().transform((v) => v ?? null),
  group: optionalText('Group', 100).transform((v) => (v ? v : null)),
});
export type StatusComponentInput = z.output<typeof StatusComponentInput>;

const passwordField = z
  .string({ error: 'Password must be text' })
  .max(200, 'Password must be at most 200 characters long')
  .nullish()
  .refine((v) => v === undefined || v === null || v === '' || v.length >= 6, 'Page password must be at least 6 characters long');

const pageFields = {
  slug: StatusPageSlug,
  title: requiredText('Title', 120),
  description: optionalText('Description', 2000),
  published: flag('published', true),
  /** undefined: unchanged (PUT) / none (POST); null or '': no password; text: the new password. */
  password: passwordField,
  custom_domain: customDomain,
  timezone: timeZoneField(),
  auto_reports: flag('auto_reports', true),
  components: z
    .array(StatusComponentInput, { error: 'Components must be a list' })
    .max(100, 'A status page has at most 100 components')
    .nullish()
    .transform((v) => v ?? []),
};

export const StatusPageBody = z.object(pageFields).meta({ id: 'StatusPageBody', description: 'POST /api/users/status-pages and PUT /api/users/status-pages/:id' });
export type StatusPageBody = z.output<typeof StatusPageBody>;

const affected = z
  .array(
    z.object({
      component_id: idRef('Component id'),
      impact: z.enum(REPORT_IMPACTS, { error: `Impact must be one of ${REPORT_IMPACTS.join(', ')}` }),
    }),
    { error: 'Affected must be a list of components' },
  )
  .max(100, 'Affected must be a list of components');

const reportStatus = z.enum(REPORT_STATUSES, { error: `Status must be one of ${REPORT_STATUSES.join(', ')}` });

export const StatusReportBody = z.object({
  title: requiredText('Title', 200),
  status: reportStatus.default('investigating'),
  message: requiredText('Message', 5000),
  affected: affected.nullish().transform((v) => v ?? []),
}).meta({ id: 'StatusReportBody', description: 'POST /api/users/status-pages/:id/reports' });
export type StatusReportBody = z.output<typeof StatusReportBody>;

export const StatusReportEditBody = z.object({ title: requiredText('Title', 200) }).meta({ id: 'StatusReportEditBody', description: 'PUT /api/users/status-pages/:id/reports/:report_id' });

export const StatusUpdateBody = z.object({
  status: reportStatus,
  message: requiredText('Message', 5000),
  /** Absent: the report's affected components stay as they are. */
  affected: affected.nullish().transform((v) => v ?? null),
}).meta({ id: 'StatusUpdateBody', description: 'POST /api/users/status-pages/:id/reports/:report_id/updates' });
export type StatusUpdateBody = z.output<typeof StatusUpdateBody>;

export const StatusUpdateEditBody = z.object({ message: requiredText('Message', 5000) }).meta({ id: 'StatusUpdateEditBody', description: 'PUT /api/users/status-pages/:id/reports/:report_id/updates/:update_id' });

/** At most 7 days long. */
export const MAINTENANCE_MAX_MS = 7 * 24 * 3600_000;

const isoTime = (label: string) =>
  z
    .string({ error: `${label} must be a date-time such as 2026-01-31T22:00:00Z` })
    .refine((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) && Number.isFinite(Date.parse(v)), `${label} must be a date-time such as 2026-01-31T22:00:00Z`)
    .transform((v) => Date.parse(v));

export const MaintenanceBody = z
  .object({
    title: requiredText('Title', 200),
    message: optionalText('Message', 5000),
    endpoint_ids: z
      .array(idRef('Endpoint id'), { error: 'Endpoint ids must be a list of endpoint ids' })
      .min(1, 'Choose at least one endpoint')
      .max(1000, 'At most 1000 endpoints per maintenance window')
      .transform((v) => [...new Set(v)]),
    starts_at: isoTime('Start'),
    ends_at: isoTime('End'),
  })
  .refine((b) => b.ends_at > b.starts_at, { message: 'The end must be after the start' })
  .refine((b) => b.ends_at - b.starts_at <= MAINTENANCE_MAX_MS, { message: 'A maintenance window is at most 7 days long' })
  .meta({ id: 'MaintenanceBody', description: 'POST /api/users/maintenance-windows and PUT /api/users/maintenance-windows/:id' });
export type MaintenanceBody = z.output<typeof MaintenanceBody>;

export const SubscribeBody = z.object({ email: mailboxAddress() }).meta({ id: 'SubscribeBody', description: 'POST /api/public/status/:slug/subscribe' });

export const SlugQuery = z.object({ slug: z.string({ error: 'Slug is required' }) }).meta({ id: 'SlugQuery', description: 'GET /api/users/status-pages/slug-available' });
