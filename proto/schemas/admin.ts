// Operator bodies behind /api/admin (admin token). Catalogue lookups (user, package, region exists) stay in the service.
import { z } from 'zod';

const trimmed = (message: string) => z.string({ error: message }).trim();

const setPackageRequired = 'email and package are required';
export const SetPackageBody = z
  .object({
    email: trimmed(setPackageRequired).min(1, setPackageRequired),
    package: trimmed(setPackageRequired).min(1, setPackageRequired),
  })
  .meta({ id: 'SetPackageBody', description: 'POST /api/admin/users/set-package' });
export type SetPackageBody = z.infer<typeof SetPackageBody>;

const workspacePackageRequired = 'package is required';
export const WorkspaceSetPackageBody = z
  .object({ package: trimmed(workspacePackageRequired).min(1, workspacePackageRequired) })
  .meta({ id: 'WorkspaceSetPackageBody', description: 'POST /api/admin/workspaces/{id}/set-package' });
export type WorkspaceSetPackageBody = z.infer<typeof WorkspaceSetPackageBody>;

const regionError = 'region must be 2 to 10 letters, e.g. US';
const cityError = 'city must be a name of 2 to 40 letters, e.g. Virginia';
export const RegionCreateBody = z
  .object({
    region: trimmed(regionError).regex(/^[A-Za-z]{2,10}$/, regionError),
    city: trimmed(cityError).regex(/^[A-Za-z][A-Za-z .]{1,40}$/, cityError),
    primary: z.boolean({ error: 'primary must be true or false' }).default(false),
  })
  .meta({ id: 'RegionCreateBody', description: 'POST /api/admin/regions' });
export type RegionCreateBody = z.infer<typeof RegionCreateBody>;

/** A bootstrap token lives a day unless asked otherwise. */
export const DEFAULT_AGENT_TOKEN_TTL_SECONDS = 86_400;

const positiveOrNull = (field: string, def: number) =>
  z
    .number({ error: `${field} must be a positive whole number` })
    .int(`${field} must be a positive whole number`)
    .positive(`${field} must be a positive whole number`)
    .nullable()
    .default(def);

export const AgentTokenCreateBody = z
  .object({
    region: z.string().trim().catch(''),
    /** absent: 24 h; null: never expires */
    expires_in_seconds: positiveOrNull('expires_in_seconds', DEFAULT_AGENT_TOKEN_TTL_SECONDS),
    /** registrations allowed; absent: 1 (single-use); null: any number */
    max_uses: positiveOrNull('max_uses', 1),
  })
  .meta({
    id: 'AgentTokenCreateBody',
    description: 'POST /api/admin/agent-tokens: expires after 24 h unless expires_in_seconds says otherwise (null: never); single-use unless max_uses says otherwise (null: any number)',
  });
export type AgentTokenCreateBody = z.infer<typeof AgentTokenCreateBody>;

/** An id as the path or query carries it: 1 to 15 digits. */
export const IdParam = z.string().regex(/^\d{1,15}$/).transform(Number);

export const ResultsCountQuery = z
  .object({ endpoint_id: IdParam.optional() })
  .meta({ id: 'ResultsCountQuery', description: 'GET /api/admin/results/count query' });
export type ResultsCountQuery = z.infer<typeof ResultsCountQuery>;
