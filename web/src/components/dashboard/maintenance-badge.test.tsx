// The dashboard marks endpoints in a maintenance window in progress, and only those.
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import type { Endpoint, MaintenanceWindow } from '@upfleet/proto/rest';
import { DashboardPage } from '../../pages/DashboardPage';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';

const endpoint = (url_id: number, name: string): Endpoint => ({
  kind: 'http', url_id, guid: `g${url_id}`, name, url: `https://${name}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false,
  cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: 100, created_at: '',
  status: 'up', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
});
const window = (id: number, endpoint_ids: number[], state: MaintenanceWindow['state']): MaintenanceWindow => ({
  id, title: `W${id}`, message: '', endpoint_ids, starts_at: '2026-01-01T00:00:00Z', ends_at: '2026-01-01T01:00:00Z', state,
});

describe('dashboard and maintenance', () => {
  it('shows a Maintenance badge on endpoints of a window in progress, not on scheduled or completed ones', async () => {
    const api = scriptedApi({
      'GET /api/users/dashboard': () => ok({ active_monitoring: 3, total_endpoints: 3, regions_count: 3, package_name: 'Pro', max_regions: 3, max_endpoints: 200, multi_region: true, ping_host: true, cert_expiry: true, response_code: true, response_time: true }),
      'GET /api/users/endpoints-with-uptime': () => ok([endpoint(1, 'db'), endpoint(2, 'web'), endpoint(3, 'api')]),
      'GET /api/public/regions': () => ok([]),
      'GET /api/users/incidents': () => ok([]),
      'GET /api/users/maintenance-windows': () => ok([window(1, [1], 'in_progress'), window(2, [2], 'scheduled'), window(3, [3], 'completed')]),
    });
    renderWith(<DashboardPage />, testServices(api));
    const badge = await screen.findByTestId('maintenance-badge');
    expect(badge).toHaveTextContent('Maintenance');
    expect(screen.getAllByTestId('maintenance-badge')).toHaveLength(1);
    expect(badge.closest('[data-testid="endpoint-row"]')!.querySelector('h3')!.textContent).toBe('db');
  });

  it("says Maintenance as the row's status word when the server reports it, without a second badge", async () => {
    const api = scriptedApi({
      'GET /api/users/dashboard': () => ok({ active_monitoring: 2, total_endpoints: 2, regions_count: 3, package_name: 'Pro', max_regions: 3, max_endpoints: 200, multi_region: true, ping_host: true, cert_expiry: true, response_code: true, response_time: true, status_counts: { down: 0, degraded: 0, maintenance: 1, pending: 0, up: 1, paused: 0 } }),
      'GET /api/users/endpoints-with-uptime': () => ok([{ ...endpoint(1, 'db'), status: 'maintenance' }, endpoint(2, 'web')]),
      'GET /api/public/regions': () => ok([]),
      'GET /api/users/incidents': () => ok([]),
      'GET /api/users/maintenance-windows': () => ok([window(1, [1], 'in_progress')]),
    });
    renderWith(<DashboardPage />, testServices(api));
    const words = await screen.findAllByTestId('status-word');
    expect(words.map((w) => w.textContent)).toEqual(['Maintenance', 'Up']);
    expect(screen.queryByTestId('maintenance-badge')).toBeNull();
    expect(await screen.findByTestId('count-maintenance')).toHaveTextContent('1 Maintenance');
  });
});
