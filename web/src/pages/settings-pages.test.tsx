import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ALERT_PLATFORMS } from '@upfleet/proto/rest';
import { AlertSettingsPage } from './AlertSettingsPage';
import { AlertMethodModal } from '../components/alerts/AlertMethodModal';
import { ApiKeysCard } from '../components/profile/ApiKeysCard';
import { ChangePasswordForm } from '../components/profile/ChangePasswordForm';
import { ProfileForm } from '../components/profile/ProfileForm';
import { SubscriptionCard } from '../components/profile/SubscriptionCard';
import { DisableTwoFactorDialog } from '../components/profile/DisableTwoFactorDialog';
import { TwoFactorSetupModal } from '../components/TwoFactorSetupModal';
import { ProfilePage } from './ProfilePage';
import { fail, ok, renderWith, scriptedApi, testServices } from '../test-utils';

describe('Alert Settings', () => {
  it("shows 'No alert methods configured' when empty", async () => {
    renderWith(<AlertSettingsPage />, testServices(scriptedApi({ 'GET /api/users/alert-methods': () => ok([]) })));
    expect(await screen.findByText('No alert methods configured')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Add Alert Method/ })).toBeEnabled();
  });

  it('disables Add Alert Method when every platform exists', async () => {
    const all = ALERT_PLATFORMS.map((p, i) => ({ alert_method_id: i + 1, platform: p, is_enabled: true, platform_config: {} }));
    renderWith(<AlertSettingsPage />, testServices(scriptedApi({ 'GET /api/users/alert-methods': () => ok(all) })));
    expect(await screen.findAllByTestId('alert-method-row')).toHaveLength(ALERT_PLATFORMS.length);
    expect(screen.getByRole('button', { name: /Add Alert Method/ })).toBeDisabled();
  });

  it('refuses a second method on a configured platform with the SPEC message', async () => {
    const onSave = vi.fn(async () => true);
    renderWith(<AlertMethodModal method={null} existing={['email']} onSave={onSave} onClose={() => undefined} />, testServices(scriptedApi({})));
    const u = userEvent.setup();
    await u.selectOptions(screen.getByLabelText('Platform'), 'email');
    await u.type(screen.getByLabelText('Email Address'), 'ops@example.com');
    await u.click(screen.getByRole('button', { name: 'Add Alert Method' }));
    expect(screen.getByRole('alert')).toHaveTextContent('An alert method for this platform already exists. Please choose a different platform or edit the existing one.');
    expect(onSave).not.toHaveBeenCalled();
  });

  it('shows per-platform fields and fixes the platform when editing', async () => {
    const m = { alert_method_id: 3, platform: 'telegram' as const, is_enabled: true, platform_config: { bot_token: 't', chat_id: '1' } };
    renderWith(<AlertMethodModal method={m} existing={['telegram']} onSave={async () => true} onClose={() => undefined} />, testServices(scriptedApi({})));
    expect(screen.getByLabelText('Platform')).toBeDisabled();
    expect(screen.getByLabelText('Bot Token')).toHaveValue('t');
    expect(screen.getByLabelText('Chat ID')).toHaveValue('1');
  });

  it('deletes only after confirming', async () => {
    const api = scriptedApi({
      'GET /api/users/alert-methods': () => ok([{ alert_method_id: 4, platform: 'sms', is_enabled: true, platform_config: { phone_number: '+1' } }]),
      'DELETE /api/users/alert-methods/4': () => ok(null),
    });
    renderWith(<AlertSettingsPage />, testServices(api));
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Delete SMS alert method' }));
    expect(screen.getByText('Are you sure you want to delete this alert method?')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await u.click(screen.getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'DELETE')).toBe(true));
  });
});

describe('Profile', () => {
  it('enables Save only when a value changed and reports success', async () => {
    const api = scriptedApi({ 'PUT /api/users/profile': () => ok(null) });
    renderWith(<ProfileForm initial={{ username: 'alice', email: 'a@example.com', timezone: 'UTC' }} onSaved={() => undefined} />, testServices(api));
    const save = screen.getByRole('button', { name: 'Save Changes' });
    expect(save).toBeDisabled();
    const u = userEvent.setup();
    await u.selectOptions(screen.getByLabelText('Timezone'), 'UTC+5:30');
    expect(save).toBeEnabled();
    await u.click(save);
    expect(await screen.findByText('Profile updated successfully!')).toBeInTheDocument();
    expect(api.calls[0].body).toEqual({ username: 'alice', email: 'a@example.com', timezone: 'UTC+5:30' });
    expect(save).toBeDisabled();
  });

  it("falls back to 'Failed to update profile'", async () => {
    renderWith(<ProfileForm initial={{ username: 'alice', email: 'a@example.com', timezone: 'UTC' }} onSaved={() => undefined} />, testServices(scriptedApi({ 'PUT /api/users/profile': () => fail('') })));
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Username'), 'x');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to update profile');
  });

  it('checks the new password and reports success', async () => {
    const api = scriptedApi({ 'POST /api/users/change-password': () => ok(null) });
    renderWith(<ChangePasswordForm />, testServices(api));
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Current Password'), 'oldpassword');
    await u.type(screen.getByLabelText('New Password'), 'newpass1');
    await u.type(screen.getByLabelText('Confirm New Password'), 'newpass2');
    await u.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(screen.getByRole('alert')).toHaveTextContent('New passwords do not match');
    await u.clear(screen.getByLabelText('New Password'));
    await u.clear(screen.getByLabelText('Confirm New Password'));
    await u.type(screen.getByLabelText('New Password'), 'short');
    await u.type(screen.getByLabelText('Confirm New Password'), 'short');
    await u.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(screen.getByRole('alert')).toHaveTextContent('New password must be at least 8 characters long');
    await u.clear(screen.getByLabelText('New Password'));
    await u.clear(screen.getByLabelText('Confirm New Password'));
    await u.type(screen.getByLabelText('New Password'), 'newpassword');
    await u.type(screen.getByLabelText('Confirm New Password'), 'newpassword');
    await u.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Password changed successfully!')).toBeInTheDocument();
    expect(api.calls[0].body).toEqual({ current_password: 'oldpassword', new_password: 'newpassword' });
  });
});

describe('Subscription card', () => {
  it("treats 404 as no subscription with a View Plans link to /pricing", async () => {
    renderWith(<SubscriptionCard />, testServices(scriptedApi({ 'GET /api/billing/subscription': () => fail('Not found', 404) })));
    expect(await screen.findByText('No active subscription found')).toBeInTheDocument();
    expect(screen.getByText('No active subscription')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View Plans' })).toHaveAttribute('href', '/pricing');
  });
  it("offers Retry after other failures", async () => {
    let n = 0;
    renderWith(<SubscriptionCard />, testServices(scriptedApi({ 'GET /api/billing/subscription': () => (n++ === 0 ? fail('boom', 500) : ok({ package_name: 'Free', price: 0, currency: 'EUR', status: 'active', current_period_start: null, current_period_end: '1970-01-01T00:00:00Z', customer_portal_url: null })) })));
    expect(await screen.findByText(/Failed to fetch subscription details/)).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Free plans do not require billing management.')).toBeInTheDocument();
    expect(screen.getAllByText('Not available')).toHaveLength(2);
  });
  it('says the portal link is unavailable for a paid plan without one', async () => {
    renderWith(<SubscriptionCard />, testServices(scriptedApi({ 'GET /api/billing/subscription': () => ok({ package_name: 'Pro', price: 29, currency: 'USD', status: 'past_due', current_period_start: '2025-01-01', current_period_end: '2025-02-01', customer_portal_url: null }) })));
    expect(await screen.findByText('Portal link unavailable. Please refresh or contact support.')).toBeInTheDocument();
    expect(screen.getByText('past_due')).toHaveClass('badge-yellow');
    expect(screen.getByText('$29/month')).toBeInTheDocument();
  });
});

describe('2FA setup', () => {
  it('walks QR → backup codes → 6-digit verify, then completes 2 s after success', async () => {
    try {
      const api = scriptedApi({
        'POST /api/2fa/setup': () => ok({ qrCodeUrl: 'data:image/png;base64,AA==', secret: 'JBSWY3DPEHPK3PXP', backupCodes: ['aaaa-1111', 'bbbb-2222'] }),
        'POST /api/2fa/verify': (b) => ((b as { token: string }).token === '123456' ? ok(null) : fail('Verification failed')),
      });
      const onEnabled = vi.fn();
      renderWith(<TwoFactorSetupModal onClose={() => undefined} onEnabled={onEnabled} />, testServices(api));
      const u = userEvent.setup();
      expect(await screen.findByAltText(/QR code/)).toBeInTheDocument();
      expect(screen.getByText('JBSWY3DPEHPK3PXP')).toBeInTheDocument();
      await u.click(screen.getByRole('button', { name: 'Next' }));
      expect(screen.getByText('aaaa-1111')).toBeInTheDocument();
      expect(screen.getByRole('button', { name: /Copy All/ })).toBeInTheDocument();
      await u.click(screen.getByRole('button', { name: 'Next' }));
      const verify = screen.getByRole('button', { name: 'Verify' });
      expect(verify).toBeDisabled();
      await u.type(screen.getByLabelText(/6-digit code/), '1234567x');
      expect(screen.getByLabelText(/6-digit code/)).toHaveValue('123456');
      // Fake timers from the click on, so the 2-second close is measured exactly.
      vi.useFakeTimers();
      fireEvent.click(verify);
      for (let i = 0; i < 5; i++) await act(async () => { await Promise.resolve(); });
      expect(screen.getByText('Two-factor authentication has been enabled successfully!')).toBeInTheDocument();
      await act(async () => vi.advanceTimersByTime(1999));
      expect(onEnabled).not.toHaveBeenCalled();
      await act(async () => vi.advanceTimersByTime(1));
      expect(onEnabled).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows 'Failed to initialize 2FA setup' when setup fails", async () => {
    renderWith(<TwoFactorSetupModal onClose={() => undefined} onEnabled={() => undefined} />, testServices(scriptedApi({ 'POST /api/2fa/setup': () => fail('') })));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to initialize 2FA setup');
  });
});

describe('API keys card', () => {
  const KEY = 'upk_0123456789abcdefghijklmnopqrstuv';
  const listed = { id: 7, name: 'CI', prefix: 'upk_01234567', created_at: '2026-11-01T10:00:00.000Z', last_used_at: null };

  it('creates a key, shows it once with a copy button, and lists it without the key', async () => {
    let keys: unknown[] = [];
    const api = scriptedApi({
      'GET /api/users/api-keys': () => ok(keys),
      'POST /api/users/api-keys': () => {
        keys = [listed];
        return ok({ id: 7, name: 'CI', key: KEY, prefix: 'upk_01234567', created_at: listed.created_at }, 201);
      },
    });
    renderWith(<ApiKeysCard />, testServices(api));
    const u = userEvent.setup();
    expect(await screen.findByText('No API keys yet.')).toBeInTheDocument();
    await u.type(screen.getByLabelText('Key name'), 'CI');
    await u.click(screen.getByRole('button', { name: 'Create API Key' }));
    expect(await screen.findByText(KEY)).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('API key created. Copy it now: it will not be shown again.');
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'CI' });
    await u.click(screen.getByRole('button', { name: /Copy/ }));
    expect(await navigator.clipboard.readText()).toBe(KEY);
    expect(screen.getByRole('button', { name: /Copied!/ })).toBeInTheDocument();
    const row = await screen.findByTestId('api-key-row');
    expect(row).toHaveTextContent('CI');
    expect(row).toHaveTextContent('upk_01234567…');
    expect(row).toHaveTextContent('never used');
    expect(row).not.toHaveTextContent(KEY);
  });

  it('asks for a name before calling the server, and shows the server refusal', async () => {
    const api = scriptedApi({
      'GET /api/users/api-keys': () => ok([]),
      'POST /api/users/api-keys': () => fail('API access is not available in your current plan. Please upgrade to enable this feature.', 403),
    });
    renderWith(<ApiKeysCard />, testServices(api));
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Create API Key' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Name is required');
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    await u.type(screen.getByLabelText('Key name'), 'deploys');
    await u.click(screen.getByRole('button', { name: 'Create API Key' }));
    expect(await screen.findByText('API access is not available in your current plan. Please upgrade to enable this feature.')).toBeInTheDocument();
  });

  it('shows the last use and revokes only after confirming', async () => {
    let keys: unknown[] = [{ ...listed, last_used_at: '2026-11-20T08:00:00.000Z' }];
    const api = scriptedApi({
      'GET /api/users/api-keys': () => ok(keys),
      'DELETE /api/users/api-keys/7': () => {
        keys = [];
        return ok({ id: 7 });
      },
    });
    renderWith(<ApiKeysCard />, testServices(api));
    const u = userEvent.setup();
    expect(await screen.findByTestId('api-key-row')).toHaveTextContent('last used 20 Nov 2026');
    await u.click(screen.getByRole('button', { name: 'Revoke API key CI' }));
    expect(screen.getByText('Revoke "CI"? Anything using this key stops working at once.')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await u.click(screen.getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/api/users/api-keys/7')).toBe(true));
    expect(await screen.findByText('No API keys yet.')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('API key revoked');
  });

  it.each([
    ['Pro', true],
    ['Free', false],
  ])('is on the Profile page for %s: %s', async (plan, shown) => {
    const pkg = (name: string, api_access: boolean) => ({ package_id: 1, package_name: name, price: 0, currency: 'EUR', api_access });
    const api = scriptedApi({
      'GET /api/users/profile': () => ok({ username: 'alice', email: 'a@example.com', timezone: 'UTC' }),
      'GET /api/users/dashboard': () => ok({ package_name: plan }),
      'GET /api/billing/subscription': () => fail('No subscription', 404),
      'GET /api/public/packages': () => ok([pkg('Free', false), pkg('Pro', true)]),
      'GET /api/users/api-keys': () => ok([]),
      'GET /api/2fa/status': () => ok({ enabled: false }),
    });
    renderWith(<ProfilePage />, testServices(api));
    expect(await screen.findByText('€0/month')).toBeInTheDocument();
    if (shown) expect(await screen.findByRole('heading', { name: 'API Keys' })).toBeInTheDocument();
    else expect(screen.queryByRole('heading', { name: 'API Keys' })).toBeNull();
  });
});

describe('2FA disable', () => {
  it('asks for the current password, shows a refusal in the dialog, and can send a code instead', async () => {
    const api = scriptedApi({
      'POST /api/2fa/disable': (b) => {
        const body = b as { password?: string; token?: string };
        return body.password === 'right password' || body.token === '654321' ? ok({ enabled: false }) : fail('Current password is incorrect');
      },
    });
    const onDisabled = vi.fn();
    renderWith(<DisableTwoFactorDialog onDisabled={onDisabled} onCancel={() => undefined} />, testServices(api));
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Disable 2FA' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter your current password');
    expect(api.calls).toHaveLength(0);
    await u.type(screen.getByLabelText('Current password'), 'wrong password');
    await u.click(screen.getByRole('button', { name: 'Disable 2FA' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Current password is incorrect');
    expect(onDisabled).not.toHaveBeenCalled();

    await u.click(screen.getByRole('button', { name: /authenticator app instead/ }));
    await u.type(screen.getByLabelText('Verification or backup code'), '654321');
    await u.click(screen.getByRole('button', { name: 'Disable 2FA' }));
    await waitFor(() => expect(onDisabled).toHaveBeenCalledTimes(1));
    expect(api.calls.map((c) => c.body)).toEqual([{ password: 'wrong password' }, { token: '654321' }]);
  });
});
