// The second step of a single sign-on to an account with two-factor (/login/sso with a ticket), and
// the custom-domain proof in the status page editor (the TXT record to create, its state, Verify).
import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { StatusPage } from '@upfleet/proto/rest';
import { fail, ok, renderWith, scriptedApi, testServices } from '../test-utils';
import { SsoCallbackPage } from './SsoPages';
import { DomainProof } from '../components/status-pages/DomainProof';

describe('SSO sign-in with two-factor', () => {
  it('asks for the code after the provider, trades the ticket with it, and signs in only with a right one', async () => {
    let tries = 0;
    const api = scriptedApi({
      'POST /api/auth/oidc/two-factor': (body) => {
        tries++;
        expect(body).toMatchObject({ ticket: 'ticket-1' });
        return (body as { two_factor_code: string }).two_factor_code === '123456'
          ? ok({ accessToken: 'access-1', refreshToken: 'refresh-1' })
          : { ...fail('Invalid verification code', 401), requires2FA: true };
      },
    });
    const services = testServices(api);
    window.history.replaceState(null, '', '/login/sso#two_factor_ticket=ticket-1');
    const { router } = renderWith(<SsoCallbackPage />, services, '/login/sso');
    expect(await screen.findByRole('heading', { name: 'Two-Factor Authentication' })).toBeInTheDocument();
    expect(window.location.hash).toBe(''); // the ticket leaves the address bar
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Verification code'), '000000');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid verification code');
    expect(services.auth.getState().accessToken ?? null).toBeNull();
    await u.clear(screen.getByLabelText('Verification code'));
    await u.type(screen.getByLabelText('Verification code'), '123456');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(services.auth.getState().accessToken).toBe('access-1');
    expect(tries).toBe(2);
  });
});

describe('custom domain proof', () => {
  const page = { id: 7, custom_domain: 'status.acme.example', custom_domain_verified: false, custom_domain_token: 'f'.repeat(32) } as StatusPage;

  it('shows the TXT record to create and its state, and Verify says whether the record was found', async () => {
    let found = false;
    const api = scriptedApi({
      'POST /api/users/status-pages/7/verify-domain': () => ok({ found, custom_domain: page.custom_domain, custom_domain_verified: found, record_name: '_upfleet-challenge.status.acme.example', record_value: page.custom_domain_token }),
    });
    renderWith(<DomainProof page={page} />, testServices(api), '/status-pages');
    expect(screen.getByText('_upfleet-challenge.status.acme.example')).toBeInTheDocument();
    expect(screen.getByText('f'.repeat(32))).toBeInTheDocument();
    expect(screen.getByText('Not verified')).toBeInTheDocument();
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Record not found yet');
    found = true;
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Record found: status.acme.example now shows this page.'));
    expect(screen.getByText('Verified')).toBeInTheDocument();
  });
});
