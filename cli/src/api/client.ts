// The client for the control plane's admin API (admin token). Commands call its methods and never
// see fetch, status codes or the { success, data } envelope; every failure is a CliError (api/http.ts).
import { AgentTokenCreateBody, RegionCreateBody, SetPackageBody, SetPackagePriceBody, WorkspaceSetPackageBody } from '@upfleet/proto/schemas';
import { checkedBody as body, createJsonApi } from './http';
import type {
  AddRegionInput,
  AdminRegion,
  AdminUser,
  AdminWorkspace,
  AgentInfo,
  AgentTokenInfo,
  ClusterStatus,
  CreatedAgentToken,
  Package,
  PriceSyncRow,
  Region,
  RevokedAgentToken,
  UserPackageChange,
  WorkspacePackageChange,
} from './types';

export interface AdminClientOptions {
  server: string;
  /** Resolved lazily so commands that fail before a request do not demand a token. */
  token: () => string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface AdminClient {
  listUsers(): Promise<AdminUser[]>;
  listWorkspaces(): Promise<AdminWorkspace[]>;
  setUserPackage(email: string, packageName: string): Promise<UserPackageChange>;
  setWorkspacePackage(workspaceId: number, packageName: string): Promise<WorkspacePackageChange>;
  listPackages(): Promise<Package[]>;
  setPackagePrice(packageName: string, stripePriceId: string): Promise<Package>;
  syncStripePrices(): Promise<PriceSyncRow[]>;
  listRegions(): Promise<AdminRegion[]>;
  addRegion(input: AddRegionInput): Promise<Region>;
  /** expiresInSeconds / maxUses: undefined leaves the server's default (24 h, single-use), null means never / any number. */
  createAgentToken(region: string, expiresInSeconds?: number | null, maxUses?: number | null): Promise<CreatedAgentToken>;
  listAgentTokens(): Promise<AgentTokenInfo[]>;
  revokeAgentToken(tokenId: string): Promise<RevokedAgentToken>;
  listAgents(): Promise<AgentInfo[]>;
  clusterStatus(): Promise<ClusterStatus>;
}

export { normalizeServerUrl } from './http';

export function createAdminClient(options: AdminClientOptions): AdminClient {
  const request = createJsonApi({
    server: options.server,
    credential: options.token,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    rejected: (base, serverText) =>
      `Admin token rejected by ${base}${serverText ? ` (${serverText})` : ''}: check --token, UPFLEET_ADMIN_TOKEN or the admin-token file`,
  });

  return {
    listUsers: () => request('GET', '/api/admin/users'),
    listWorkspaces: () => request('GET', '/api/admin/workspaces'),
    setUserPackage: async (email, packageName) =>
      request('POST', '/api/admin/users/set-package', body(SetPackageBody, { email, package: packageName })),
    setWorkspacePackage: async (workspaceId, packageName) =>
      request('POST', `/api/admin/workspaces/${workspaceId}/set-package`, body(WorkspaceSetPackageBody, { package: packageName })),
    listPackages: () => request('GET', '/api/admin/packages'),
    setPackagePrice: async (packageName, stripePriceId) =>
      request('POST', '/api/admin/packages/set-price', body(SetPackagePriceBody, { package: packageName, stripe_price_id: stripePriceId })),
    syncStripePrices: () => request('POST', '/api/admin/packages/sync-stripe', {}),
    listRegions: () => request('GET', '/api/admin/regions'),
    addRegion: async (input) => request('POST', '/api/admin/regions', body(RegionCreateBody, input)),
    createAgentToken: async (region, expiresInSeconds, maxUses) =>
      request('POST', '/api/admin/agent-tokens', body(AgentTokenCreateBody, {
        region,
        ...(expiresInSeconds === undefined ? {} : { expires_in_seconds: expiresInSeconds }),
        ...(maxUses === undefined ? {} : { max_uses: maxUses }),
      })),
    listAgentTokens: () => request('GET', '/api/admin/agent-tokens'),
    revokeAgentToken: (tokenId) => request('DELETE', `/api/admin/agent-tokens/${encodeURIComponent(tokenId)}`),
    listAgents: () => request('GET', '/api/admin/agents'),
    clusterStatus: () => request('GET', '/api/admin/cluster'),
  };
}
