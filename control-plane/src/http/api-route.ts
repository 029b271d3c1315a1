// One row of the public API's route table (openapi.ts builds GET /api/openapi.json from it); its own
// file so the route tables of each area (openapi-status-pages.ts) and openapi.ts import it without a cycle.
import type { z } from 'zod';

type Access = 'public' | 'key' | 'session';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ApiRoute {
  method: Method;
  /** OpenAPI path, parameters in braces. */
  path: string;
  summary: string;
  tag: 'Catalogue' | 'Billing' | 'Endpoints' | 'Alerts' | 'Graphs' | 'Reports' | 'API keys' | 'Account' | 'Status pages' | 'Workspaces';
  access: Access;
  body?: z.ZodType;
  query?: z.ZodType;
  /** The `data` of the success answer. */
  data: z.ZodType;
  created?: boolean;
  /** Headers of the success answer besides the rate-limit ones (components/headers names). */
  headers?: string[];
  /** A Server-Sent Events stream: the success answer is text/event-stream, described by this text (data is unused). */
  stream?: string;
  /** An answer that is not JSON (a file download, Prometheus text): one of these media types, described by the text (data is unused). */
  media?: { types: string[]; description: string };
  /** Statuses besides 400 (with a body or query), 401/403/429 (signed-in routes), 429/500 (public routes) and 404 (path ids). */
  errors?: number[];
  /** Takes `?dry_run=1`: checked like a save, nothing saved, 200 { dry_run: true, endpoint }. */
  dryRun?: boolean;
}
