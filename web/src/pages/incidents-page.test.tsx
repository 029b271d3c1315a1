import { describe, expect, it } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import type { Incident, IncidentDetail, ScreenshotInfo } from '@upfleet/proto/rest';
import { ServicesProvider } from '../app-context';
import { setDisplayZone } from '../lib/format';
import { fail, ok, scriptedApi, testServices } from '../test-utils';
import { IncidentsPage, failureShotOf, incidentOrder } from './IncidentsPage';

const base: Incident = {
  incident_id: 1, url_id: 7, condition: 'down', regions: ['EU - Germany'], cause: 'HTTP 503 from EU - Germany', flapping: false,
  opened_at: '2026-11-23T10:00:00.000Z', resolved_at: null, state: 'open', acknowledged_at: null, acknowledged_by: null, endpoint_name: 'Shop',
};
const inc = (over: Partial<Incident>): Incident => ({ ...base, ...over });

function show(path: string, routes: Parameters<typeof scriptedApi>[0], role: 'owner' | 'editor' | 'viewer' = 'owner') {
  const api = scriptedApi({ 'GET /api/workspaces': () => ok([{ id: 1, name: 'Personal', personal: true, role, package_name: 'Free' }]), ...routes });
  const services = testServices(api);
  services.auth.getState().setSession({ accessToken: 'a', refreshToken: 'r', user: { id: 1, username: 'alice', email: 'alice@example.com', timezone: 'UTC', two_factor_enabled: false } });
  const router = createMemoryRouter([{ path: '/incidents', element: <IncidentsPage /> }, { path: '/incidents/:id', element: <IncidentsPage /> }], { initialEntries: [path] });
  render(<ServicesProvider services={services}><RouterProvider router={router} /></ServicesProvider>);
  return { api, router };
}

describe('Incidents page', () => {
  it('orders open first, then acknowledged, then resolved, newest first within each', () => {
    const list = [
      inc({ incident_id: 1, state: 'resolved', opened_at: '2026-11-23T12:00:00.000Z', resolved_at: '2026-11-23T12:05:00.000Z' }),
      inc({ incident_id: 2, state: 'acknowledged', opened_at: '2026-11-23T11:00:00.000Z' }),
      inc({ incident_id: 3, state: 'open', opened_at: '2026-11-23T09:00:00.000Z' }),
      inc({ incident_id: 4, state: 'open', opened_at: '2026-11-23T10:00:00.000Z' }),
    ];
    expect(incidentOrder(list).map((i) => i.incident_id)).toEqual([4, 3, 2, 1]);
  });

  it('lists state, endpoint, condition, cause, opened, duration and who acknowledged, and filters by state', async () => {
    setDisplayZone('UTC');
    const { api } = show('/incidents', {
      'GET /api/users/incidents': () => ok([
        inc({ incident_id: 2, state: 'resolved', condition: 'threshold:response_time:any', cause: 'response time 2300 ms > 2000 ms', resolved_at: '2026-11-23T10:03:20.000Z', endpoint_name: 'Api' }),
        inc({ incident_id: 1, state: 'acknowledged', acknowledged_at: '2026-11-23T10:01:00.000Z', acknowledged_by: { user_id: 3, name: 'bob', email: 'bob@example.com', via: 'app' } }),
      ]),
    });
    const rows = await screen.findAllByTestId('incident-row');
    expect(within(rows[0]).getByTestId('incident-state')).toHaveTextContent('Acknowledged');
    expect(rows[0]).toHaveTextContent('Shop');
    expect(rows[0]).toHaveTextContent('Down');
    expect(rows[0]).toHaveTextContent('bob');
    expect(within(rows[0]).getByRole('link', { name: 'Shop' })).toHaveAttribute('href', '/incidents/1');
    expect(rows[1]).toHaveTextContent('Response Time threshold');
    expect(rows[1]).toHaveTextContent('3 min 20 s');
    expect(rows[1]).toHaveTextContent('23 Nov');
    await userEvent.setup().selectOptions(screen.getByLabelText('State'), 'open');
    await waitFor(() => expect(api.calls.at(-1)!.path).toBe('/api/users/incidents?state=open'));
  });

  it('acknowledges every open incident listed with one button', async () => {
    let list = [inc({ incident_id: 1 }), inc({ incident_id: 2, endpoint_name: 'Api' }), inc({ incident_id: 3, state: 'resolved', resolved_at: '2026-11-23T10:10:00.000Z' })];
    const { api } = show('/incidents', {
      'GET /api/users/incidents': () => ok(list),
      'POST /api/users/incidents/acknowledge': () => {
        list = list.map((i) => (i.state === 'open' ? { ...i, state: 'acknowledged' as const } : i));
        return ok({ acknowledged: [1, 2], skipped: [] });
      },
    }, 'editor');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Acknowledge all open (2)' }));
    expect(api.calls.find((c) => c.path === '/api/users/incidents/acknowledge')!.body).toEqual({ incident_ids: [2, 1] });
    await waitFor(() => expect(screen.queryByRole('button', { name: /Acknowledge all open/ })).toBeNull());
    expect(screen.getAllByTestId('incident-state').map((e) => e.textContent)).toEqual(['Acknowledged', 'Acknowledged', 'Resolved']);
  });

  const detail: IncidentDetail = {
    ...base,
    timeline: [
      { at: '2026-11-23T10:00:00.000Z', type: 'opened', step: null, alert_method_id: null, platform: null, detail: 'HTTP 503 from EU - Germany', delivery: null, by: null },
      { at: '2026-11-23T10:00:01.000Z', type: 'delivery', step: 1, alert_method_id: 5, platform: 'webhook', detail: 'opened', delivery: { delivery_id: 9, event: 'opened', status: 'failed', attempts: 3, last_error: 'HTTP 500', delivered_at: null }, by: null },
      { at: '2026-11-23T10:05:00.000Z', type: 'escalated', step: 2, alert_method_id: 6, platform: 'slack', detail: 'to step 2', delivery: null, by: null },
    ],
  };

  it('shows the timeline, any entry type included, and acknowledges with the button', async () => {
    let current = detail;
    const { api } = show('/incidents/1', {
      'GET /api/users/incidents/1': () => ok(current),
      'POST /api/users/incidents/1/acknowledge': () => {
        current = { ...detail, state: 'acknowledged', acknowledged_at: '2026-11-23T10:06:00.000Z', acknowledged_by: { user_id: 1, name: 'alice', email: 'alice@example.com', via: 'app' },
          timeline: [...detail.timeline, { at: '2026-11-23T10:06:00.000Z', type: 'acknowledged', step: null, alert_method_id: null, platform: null, detail: 'in the app', delivery: null, by: { user_id: 1, name: 'alice', email: 'alice@example.com', via: 'app' } }] };
        return ok(current);
      },
    });
    const entries = await screen.findAllByTestId('timeline-entry');
    expect(entries.map((e) => e.getAttribute('data-type'))).toEqual(['opened', 'delivery', 'escalated']);
    expect(entries[1]).toHaveTextContent('Alert to webhook, step 1: failed, 3 attempts (HTTP 500)');
    expect(entries[2]).toHaveTextContent('Escalated · step 2 · slack · to step 2');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Acknowledge' }));
    expect(api.calls.some((c) => c.method === 'POST' && c.path === '/api/users/incidents/1/acknowledge')).toBe(true);
    await waitFor(() => expect(screen.getAllByTestId('timeline-entry').at(-1)).toHaveTextContent('Acknowledged by alice (alice@example.com)'));
    expect(screen.queryByRole('button', { name: 'Acknowledge' })).toBeNull();
  });

  it('shows a browser check\'s failing step and the screenshot taken at the failure on the opened entry', async () => {
    const shot = (id: string, name: string, at: string): ScreenshotInfo => ({ id: id.repeat(32), result_id: `r-${id}`, name, step: 2, mime: 'image/png', bytes: 68, taken_at: at });
    const shots = [shot('c', 'failure', '2026-11-23T10:03:00.000Z'), shot('b', 'failure', '2026-11-23T09:59:30.000Z'), shot('a', 'after login', '2026-11-23T09:59:50.000Z'), shot('9', 'failure', '2026-11-23T09:50:00.000Z')];
    // the newest failure screenshot up to the opening: not a later run's, not a screenshot step's
    expect(failureShotOf(shots, '2026-11-23T10:00:00.000Z')?.id).toBe('b'.repeat(32));
    expect(failureShotOf([], '2026-11-23T10:00:00.000Z')).toBeNull();
    const browserDetail: IncidentDetail = {
      ...detail, cause: 'step 2 (click #buy): element not found from EU - Germany',
      timeline: [{ at: '2026-11-23T10:00:00.000Z', type: 'opened', step: null, alert_method_id: null, platform: null, detail: 'step 2 (click #buy): element not found from EU - Germany', delivery: null, by: null }],
    };
    const loaded: string[] = [];
    const { api } = show('/incidents/1', {
      'GET /api/users/incidents/1': () => ok(browserDetail),
      'GET /api/users/endpoints/7/screenshots': () => ok(shots),
    });
    Object.assign(api, { blob: async (p: string) => (loaded.push(p), new Blob([new Uint8Array([0x89])], { type: 'image/png' })) });
    Object.assign(URL, { createObjectURL: () => 'blob:http://localhost/x', revokeObjectURL: () => undefined });
    const [opened] = await screen.findAllByTestId('timeline-entry');
    expect(opened).toHaveTextContent('Opened: step 2 (click #buy): element not found');
    expect(await within(opened).findByRole('button', { name: /Open Screenshot "failure" at step 2/ }, { timeout: 5000 })).toBeInTheDocument();
    expect(loaded).toEqual([`/api/users/endpoints/7/screenshots/${'b'.repeat(32)}`]);
  });

  it('offers no Acknowledge button to a viewer', async () => {
    show('/incidents/1', { 'GET /api/users/incidents/1': () => ok(detail) }, 'viewer');
    await screen.findAllByTestId('timeline-entry');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Acknowledge' })).toBeNull());
  });

  it('shows the 409 of a resolved incident', async () => {
    show('/incidents/1', {
      'GET /api/users/incidents/1': () => ok(detail),
      'POST /api/users/incidents/1/acknowledge': () => fail("A resolved incident can't be acknowledged", 409),
    }, 'editor');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Acknowledge' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("A resolved incident can't be acknowledged");
  });
});
