// Shapes of the control plane's admin REST API (/api/admin/*). Package and Region come from the
// browser-safe module shared with the web app; the admin-only shapes live here until the control
// plane exports them.
import type { Package, PriceSyncRow, Region } from '@upfleet/proto/rest';

export type { Package, PriceSyncRow, Region };

export interface AdminUser {
  id: number;
  username: string;
  email: string;
  package_name: string;
  endpoints: number;
  two_factor_enabled: boolean;
  created_at: string;
  /** The workspaces the person is in: `Name #id (role)`, comma-separated. */
  workspaces?: string | null;
}

export interface AdminWorkspace {
  id: number;
  name: string;
  personal: boolean;
  package_name: string;
  /** The workspace's account row (its plan's holder); operators move a plan by id (upfleet workspace set-package). */
  account_email: string;
  members: number;
  endpoints: number;
  owner_email: string | null;
  created_at: string;
}

export interface WorkspacePackageChange {
  id: number;
  name: string;
  package_name: string;
}

export interface UserPackageChange {
  id: number;
  email: string;
  package_name: string;
}

export interface AdminRegion extends Region {
  agents_live: number;
}

/** POST /api/admin/regions, checked with the shared schema before it is sent. */
export type { RegionCreateBody as AddRegionInput } from '@upfleet/proto/schemas';

export interface CreatedAgentToken {
  token_id: string;
  token: string;
  region: string;
  expires_at: string | null;
  /** registrations allowed; null: any number (absent from older control planes) */
  max_uses?: number | null;
  /** the control plane's PUBLIC_URL; null when unset (absent from older control planes) */
  public_url?: string | null;
}

export interface AgentTokenInfo {
  token_id: string;
  region: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  used_count: number;
  max_uses?: number | null;
}

export interface RevokedAgentToken {
  token_id: string;
  revoked_at: string;
}

/** live: lease current; lapsed: missed heartbeats, its checks moved; revoked: credential withdrawn. */
export type AgentStatus = 'live' | 'lapsed' | 'revoked';

export interface AgentInfo {
  agent_id: string;
  region: string;
  hostname: string;
  status: AgentStatus;
  last_heartbeat_at: string | null;
  checks_owned: number;
  checks_per_minute: number;
  outbox_depth: number;
  version: string;
  scheduling_lag_ms_p99?: number;
  /** the agent runs an older release than the control plane (absent from older control planes) */
  outdated?: boolean;
  /** it can run browser checks (absent from older control planes) */
  browser_checks?: boolean;
  /** why it cannot: no Chromium, … */
  browser_unavailable?: string;
}

export type { ClusterProcess, ClusterStatus } from '@upfleet/proto/rest';
