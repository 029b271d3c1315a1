// Storms in the web app: the group threshold on the Alert Settings page (2–100, checked before it
// is sent, admins only), and a storm's incidents on the Incidents page: marked with their group and
// acknowledged whole with one button.
import { describe, expect, it } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import type { Incident } from '@upfleet/proto/rest';
import { ServicesProvider } from '../app-context';
import { ok, scriptedApi, testServices } from '../test-utils';
import { AlertSettingsPage } from './AlertSettingsPage';
import { IncidentsPage } from './IncidentsPage';

function show(element: React.ReactElement, path: string, routes: Parameters<typeof scriptedApi>[0], role: 'owner' | 'viewer' = 'owner') {
  const api = scriptedApi({ 'GET /api/workspaces': () => ok([{ id: 1, name: 'Personal', personal: true, role, package_name: 'Free' }]), ...routes });
  const services = testServices(api);
  services.auth.getState().setSession({ accessToken: 'a', refreshToken: 'r', user: { id: 1, username: 'alice', email: 'alice@example.com', timezone: 'UTC', two_factor_enabled: false } });
  const router = createMemoryRouter([{ path, element }], { initialEntries: [path] });
  render(<ServicesProvider services={services}><RouterProvider router={router} /></ServicesProvider>);
  return api;
}

describe('the group threshold on Alert Settings', () => {
  it('shows the workspace\'s value, refuses 1 and 101 without sending, and saves 12', async () => {
    let saved = 5;
    const api = show(<AlertSettingsPage />, '/alerts', {
      'GET /api/users/alert-methods': () => ok([]),
      'GET /api/users/alert-settings': () => ok({ group_threshold: saved }),
      'PUT /api/users/alert-settings': (body) => {
        saved = (body as { group_threshold: number }).group_threshold;
        return ok({ group_threshold: saved });
      },
    });
    const input = await screen.findByLabelText('Group threshold');
    await waitFor(() => expect(input).toHaveValue(5));
    expect(screen.getByText(/within 60 seconds, each alert method gets one grouped message/)).toBeInTheDocument();
    const u = userEvent.setup();
    for (const bad of ['1', '101']) {
      await u.clear(input);
      await u.type(input, bad);
      await u.click(screen.getByRole('button', { name: 'Save' }));
      expect(await screen.findByText('group_threshold must be a whole number from 2 to 100')).toBeInTheDocument();
    }
    expect(api.calls.filter((c) => c.method === 'PUT')).toEqual([]);
    await u.clear(input);
    await u.type(input, '12');
    await u.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'PUT')).toEqual([{ method: 'PUT', path: '/api/users/alert-settings', body: { group_threshold: 12 } }]);
    expect(saved).toBe(12);
  });

  it('a viewer sees the value but cannot change it', async () => {
    show(<AlertSettingsPage />, '/alerts', { 'GET /api/users/alert-methods': () => ok([]), 'GET /api/users/alert-settings': () => ok({ group_threshold: 8 }) }, 'viewer');
    const input = await screen.findByLabelText('Group threshold');
    await waitFor(() => expect(input).toHaveValue(8));
    expect(input).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
  });
});

describe('a storm on the Incidents page', () => {
  it('marks each incident with its group and acknowledges the group with one button', async () => {
    const inc = (id: number, group: number | null): Incident => ({
      incident_id: id, url_id: id, condition: 'down', regions: [], cause: 'HTTP 503', flapping: false, opened_at: '2026-11-23T10:00:00.000Z', resolved_at: null,
      state: 'open', acknowledged_at: null, acknowledged_by: null, endpoint_name: `Site ${id}`, group_id: group,
    });
    let list = [inc(1, 4), inc(2, 4), inc(3, 4), inc(9, null)];
    const api = show(<IncidentsPage />, '/incidents', {
      'GET /api/users/incidents': () => ok(list),
      'POST /api/users/incidents/groups/4/acknowledge': () => {
        list = list.map((i) => (i.group_id === 4 ? { ...i, state: 'acknowledged' as const } : i));
        return ok({ acknowledged: [1, 2, 3], skipped: [] });
      },
    });
    const rows = await screen.findAllByTestId('incident-row');
    expect(rows.filter((r) => r.textContent?.includes('storm #4'))).toHaveLength(3);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Acknowledge storm #4 (3)' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: /Acknowledge storm #4/ })).toBeNull());
    expect(api.calls.some((c) => c.method === 'POST' && c.path === '/api/users/incidents/groups/4/acknowledge')).toBe(true);
  });
});
