// In the web app: the banner asking to verify the email (with a resend), and the profile
// form asking for the current password when the email changes.
import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { EmailVerifyBanner } from './EmailVerifyBanner';
import { ProfileForm } from './profile/ProfileForm';
import { fail, ok, renderWith, scriptedApi, testServices } from '../test-utils';
import type { AppServices } from '../services';

const signIn = (services: AppServices) =>
  services.auth.getState().setSession({
    accessToken: 'a', refreshToken: 'r',
    user: { id: 1, username: 'alice', email: 'alice@example.com', timezone: 'UTC', two_factor_enabled: false },
  });
const profile = (email_verified: boolean) => ({ username: 'alice', email: 'alice@example.com', timezone: 'UTC', email_verified });

describe('EmailVerifyBanner', () => {
  it('asks an unverified user to verify and resends the link; a second resend too many shows the server\'s answer', async () => {
    let sends = 0;
    const api = scriptedApi({
      'GET /api/users/profile': () => ok(profile(false)),
      'POST /api/auth/resend-verification': () => (++sends === 1 ? ok({ sent: true, email: 'alice@example.com' }) : fail('Too many verification emails. Please try again later.', 429)),
    });
    const services = testServices(api);
    signIn(services);
    renderWith(<EmailVerifyBanner />, services);
    expect(await screen.findByTestId('verify-email-banner')).toHaveTextContent('Please verify your email address: open the link we sent to alice@example.com');
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Resend email' }));
    expect(await screen.findByText('Sent again to alice@example.com.')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Resend email' }));
    expect(await screen.findByText('Too many verification emails. Please try again later.')).toBeInTheDocument();
  });

  it('shows nothing for a verified user or when signed out', async () => {
    const api = scriptedApi({ 'GET /api/users/profile': () => ok(profile(true)) });
    const services = testServices(api);
    signIn(services);
    renderWith(<EmailVerifyBanner />, services);
    await waitFor(() => expect(api.calls.map((c) => c.path)).toEqual(['/api/users/profile']));
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByTestId('verify-email-banner')).toBeNull();
    localStorage.clear(); // signed out
    const out = scriptedApi({});
    renderWith(<EmailVerifyBanner />, testServices(out));
    expect(out.calls).toEqual([]);
  });
});

describe('ProfileForm email change', () => {
  it('asks for the current password, sends it, and says the email changes once the new address\'s link is opened', async () => {
    const api = scriptedApi({ 'PUT /api/users/profile': () => ok({ ...profile(true), pending_email: 'new@example.com' }) });
    renderWith(<ProfileForm initial={profile(true)} onSaved={() => undefined} />, testServices(api));
    const u = userEvent.setup();
    expect(screen.queryByLabelText(/Current password/)).toBeNull();
    await u.clear(screen.getByLabelText('Email'));
    await u.type(screen.getByLabelText('Email'), 'new@example.com');
    const save = screen.getByRole('button', { name: 'Save Changes' });
    expect(save).toBeDisabled(); // no password yet
    await u.type(screen.getByLabelText(/Current password/), 'correct horse');
    await u.click(save);
    expect(await screen.findByText('We sent a link to new@example.com: your email changes once you open it.')).toBeInTheDocument();
    expect(api.calls[0].body).toEqual({ username: 'alice', email: 'new@example.com', timezone: 'UTC', current_password: 'correct horse' });
    expect(screen.getByLabelText('Email')).toHaveValue('alice@example.com');
  });
});
