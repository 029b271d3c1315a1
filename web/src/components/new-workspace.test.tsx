// The navbar's "New workspace": a name, POST /api/workspaces, and the app switches to it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Navbar } from './Navbar';
import { ok, renderWith, scriptedApi, testServices } from '../test-utils';
import { WORKSPACE_STORAGE_KEY } from '../services';

afterEach(() => {
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('New workspace', () => {
  it('creates a workspace from the user menu and switches to it', async () => {
    const reload = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, reload });
    const api = scriptedApi({
      'GET /api/workspaces': () => ok([{ id: 1, name: 'Personal', personal: true, role: 'owner', package_name: 'Free' }]),
      'POST /api/workspaces': () => ({ success: true, data: { id: 12, name: 'Ops team', personal: false, role: 'owner', package_name: 'Free' }, status: 201 }),
    });
    const services = { ...testServices(api), storage: localStorage };
    services.auth.getState().setSession({ accessToken: 'a', refreshToken: 'r', user: { id: 1, username: 'alice', email: 'alice@example.com', timezone: 'UTC', two_factor_enabled: false } });
    renderWith(<Navbar />, services, '/members');
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: /alice/ }));
    await u.click(screen.getByRole('menuitem', { name: 'New workspace' }));
    await u.click(screen.getByRole('button', { name: 'Create workspace' }));
    expect(screen.getByText('Name is required')).toBeVisible(); // nothing sent without a name
    expect(api.calls.filter((c) => c.method === 'POST')).toEqual([]);
    await u.type(screen.getByLabelText('Name'), '  Ops team ');
    await u.click(screen.getByRole('button', { name: 'Create workspace' }));
    await waitFor(() => expect(reload).toHaveBeenCalled());
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Ops team' });
    expect(localStorage.getItem(WORKSPACE_STORAGE_KEY)).toBe('12');
    // The page keeps rendering until the reload unloads it, with a list read before the workspace
    // existed: the choice must survive that (it once fell back to the personal workspace).
    const reads = api.calls.filter((c) => c.method === 'GET').length;
    window.dispatchEvent(new Event('upfleet:workspaces-changed'));
    await waitFor(() => expect(api.calls.filter((c) => c.method === 'GET').length).toBeGreaterThan(reads));
    await new Promise((r) => setTimeout(r, 20));
    expect(localStorage.getItem(WORKSPACE_STORAGE_KEY)).toBe('12');
  });
});
