// The status-page routes of the public API, spliced into API_ROUTES by openapi.ts.
import { z } from 'zod';
import {
  DomainVerification, SubscribeBody, SubscribeResult, SubscriberList, MaintenanceBody, MaintenanceWindowResource, PublicStatusResource, SlugAvailability, SlugQuery, StatusPageBody, StatusPageDeleted, StatusPageResource,
  StatusReportBody, StatusReportDeleted, StatusReportEditBody, StatusReportResource, StatusUpdateBody, StatusUpdateEditBody,
} from '@upfleet/proto/schemas';
import type { ApiRoute } from './api-route';

const list = (s: z.ZodType) => z.array(s);
const tag = 'Status pages' as const;
const page = '/api/users/status-pages/{id}';
const report = `${page}/reports/{report_id}`;

export const STATUS_PAGE_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/api/public/status/{slug}', summary: 'A published status page as JSON (Cache-Control public, max-age=30; ETag, 304 on If-None-Match; a password-protected page wants X-Status-Password)', tag, access: 'public', data: PublicStatusResource, errors: [401, 404, 429] },
  { method: 'get', path: '/api/users/status-pages', summary: 'List status pages', tag, access: 'key', data: list(StatusPageResource) },
  { method: 'post', path: '/api/users/status-pages', summary: 'Create a status page (the plan\'s max_status_pages: 403 past it; a custom domain needs the plan\'s custom_domains: 403, and is served once verified)', tag, access: 'key', body: StatusPageBody, data: StatusPageResource, created: true, errors: [404, 409] },
  { method: 'get', path: '/api/users/status-pages/slug-available', summary: 'Whether a slug is valid and free', tag, access: 'key', query: SlugQuery, data: SlugAvailability },
  { method: 'get', path: page, summary: 'A status page', tag, access: 'key', data: StatusPageResource },
  { method: 'put', path: page, summary: 'Replace a status page (components named by component_id keep their id)', tag, access: 'key', body: StatusPageBody, data: StatusPageResource, errors: [409] },
  { method: 'delete', path: page, summary: 'Delete a status page', tag, access: 'key', data: StatusPageDeleted },
  { method: 'post', path: `${page}/verify-domain`, summary: 'Look up the TXT record _upfleet-challenge.{custom_domain} = custom_domain_token now; found: the page serves its custom domain (another page\'s hold on the name ends). Checked again daily', tag, access: 'key', data: DomainVerification, errors: [400, 403] },
  { method: 'get', path: `${page}/reports`, summary: 'A page\'s incident reports, newest first', tag, access: 'key', data: list(StatusReportResource) },
  { method: 'post', path: `${page}/reports`, summary: 'Open an incident report (its message is the first update)', tag, access: 'key', body: StatusReportBody, data: StatusReportResource, created: true },
  { method: 'put', path: report, summary: 'Rename a report', tag, access: 'key', body: StatusReportEditBody, data: StatusReportResource },
  { method: 'delete', path: report, summary: 'Delete a report', tag, access: 'key', data: StatusReportDeleted },
  { method: 'post', path: `${report}/updates`, summary: 'Post an update (status, message, optionally the affected components)', tag, access: 'key', body: StatusUpdateBody, data: StatusReportResource, created: true },
  { method: 'put', path: `${report}/updates/{update_id}`, summary: 'Edit an update\'s message', tag, access: 'key', body: StatusUpdateEditBody, data: StatusReportResource },
  { method: 'delete', path: `${report}/updates/{update_id}`, summary: 'Delete an update (the report keeps at least one)', tag, access: 'key', data: StatusReportResource },
  { method: 'post', path: '/api/public/status/{slug}/subscribe', summary: 'Subscribe an email to a page (double opt-in: a confirmation mail; the same answer whether or not it was subscribed)', tag, access: 'public', body: SubscribeBody, data: SubscribeResult, errors: [401, 404, 429] },
  { method: 'get', path: `${page}/subscribers`, summary: 'A page\'s subscribers (count of confirmed ones, and the list)', tag, access: 'key', data: SubscriberList },
  { method: 'delete', path: `${page}/subscribers/{subscriber_id}`, summary: 'Remove a subscriber', tag, access: 'key', data: StatusPageDeleted },
  { method: 'get', path: '/api/users/maintenance-windows', summary: 'List maintenance windows (state follows the clock)', tag, access: 'key', data: list(MaintenanceWindowResource) },
  { method: 'post', path: '/api/users/maintenance-windows', summary: 'Schedule maintenance (at most 7 days; a start in the past is allowed)', tag, access: 'key', body: MaintenanceBody, data: MaintenanceWindowResource, created: true, errors: [404] },
  { method: 'get', path: '/api/users/maintenance-windows/{id}', summary: 'A maintenance window', tag, access: 'key', data: MaintenanceWindowResource },
  { method: 'put', path: '/api/users/maintenance-windows/{id}', summary: 'Replace a maintenance window', tag, access: 'key', body: MaintenanceBody, data: MaintenanceWindowResource },
  { method: 'delete', path: '/api/users/maintenance-windows/{id}', summary: 'Delete a maintenance window', tag, access: 'key', data: StatusPageDeleted },
];
