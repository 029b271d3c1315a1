// The client for a user's own data through the public API, authenticated with an API key (upk_…).
// Separate from the admin client (different credential and routes), same HTTP core and CliError family.
import type { AlertThreshold, Dashboard, Endpoint, Incident, IncidentState, MonitorType, Region } from '@upfleet/proto/rest';
import { AlertThresholdsBody, EndpointCreateBody, type AlertThresholdItem } from '@upfleet/proto/schemas';
import { checkedBody as body, createJsonApi } from './http';

/** A whole endpoint as the API takes it (PUT replaces every field). */
export type EndpointFields = EndpointCreateBody;
export type SavedEndpoint = Omit<Endpoint, 'uptime_percentage'>;

export interface UserClient {
  dashboard(): Promise<Dashboard>;
  listEndpoints(): Promise<Endpoint[]>;
  createEndpoint(fields: EndpointFields): Promise<SavedEndpoint>;
  updateEndpoint(id: number, fields: EndpointFields): Promise<SavedEndpoint>;
  /** The server's dry run of a create (no id) or an update: refused as the save would be, nothing saved. */
  checkEndpoint(fields: EndpointFields, id?: number): Promise<{ dry_run: true }>;
  setMonitoring(id: number, enabled: boolean): Promise<{ url_id: number; monitoring_enabled: boolean }>;
  deleteEndpoint(id: number): Promise<{ url_id: number }>;
  thresholds(id: number): Promise<AlertThreshold[]>;
  saveThresholds(id: number, items: AlertThresholdItem[]): Promise<AlertThreshold[]>;
  regions(): Promise<Region[]>;
  monitorTypes(): Promise<MonitorType[]>;
  incidents(filter: { state?: IncidentState; urlId?: number }): Promise<Incident[]>;
  acknowledgeIncident(id: number): Promise<Incident>;
}

export function createUserClient(options: { server: string; apiKey: () => string; fetch?: typeof fetch; timeoutMs?: number; sleep?: (ms: number) => Promise<void>; workspace?: string | null }): UserClient {
  const request = createJsonApi({
    server: options.server,
    credential: options.apiKey,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    rejected: (base, serverText) => `API key rejected by ${base}${serverText ? ` (${serverText})` : ''}: check --api-key or UPFLEET_API_KEY`,
    // A key has a per-minute allowance; a large account's export or apply waits for the next minute.
    rateLimitRetries: 3,
    sleep: options.sleep,
    // A key acts in its own workspace; naming another one is a 404 (never a silent switch).
    headers: options.workspace ? { 'x-workspace-id': options.workspace } : undefined,
  });
  return {
    dashboard: () => request('GET', '/api/users/dashboard'),
    listEndpoints: () => request('GET', '/api/users/endpoints-with-uptime'),
    createEndpoint: async (fields) => request('POST', '/api/users/endpoints', body(EndpointCreateBody, fields)),
    updateEndpoint: async (id, fields) => request('PUT', `/api/users/endpoints/${id}`, body(EndpointCreateBody, fields)),
    checkEndpoint: async (fields, id) => id === undefined
      ? request('POST', '/api/users/endpoints?dry_run=1', body(EndpointCreateBody, fields))
      : request('PUT', `/api/users/endpoints/${id}?dry_run=1`, body(EndpointCreateBody, fields)),
    setMonitoring: (id, enabled) => request('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: enabled }),
    deleteEndpoint: (id) => request('DELETE', `/api/users/endpoints/${id}`),
    thresholds: (id) => request('GET', `/api/users/endpoints/${id}/alert-thresholds`),
    saveThresholds: async (id, items) => request('PUT', `/api/users/endpoints/${id}/alert-thresholds`, body(AlertThresholdsBody, { alert_thresholds: items })),
    regions: () => request('GET', '/api/users/regions'),
    monitorTypes: () => request('GET', '/api/users/monitor-types'),
    incidents: (filter) => {
      const q = new URLSearchParams();
      if (filter.state) q.set('state', filter.state);
      if (filter.urlId !== undefined) q.set('url_id', String(filter.urlId));
      return request('GET', `/api/users/incidents${q.size ? `?${q.toString()}` : ''}`);
    },
    acknowledgeIncident: (id) => request('POST', `/api/users/incidents/${id}/acknowledge`),
  };
}
