// An invitation link opened while signed out: the join page names the workspace, the inviter and
// the role, and sign-in or sign-up bring the person back to it; a verification link ends on a page
// that says what happened.
import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { ServicesProvider } from '../app-context';
import { EmailVerifiedPage, InvitationPage } from './SsoPages';
import { LoginPage } from './LoginPage';
import { SignupPage } from './SignupPage';
import { ok, scriptedApi, testServices } from '../test-utils';
import type { AppServices } from '../services';

const TOKEN = 'tok_0123456789abcdefghij';
const PREVIEW = { workspace_name: 'Ops team', inviter: 'olivia', role: 'editor', email: 'bob@example.com', expires_at: '2026-12-04T12:00:00.000Z' };

function renderApp(services: AppServices, path: string) {
  const router = createMemoryRouter([
    { path: '/invitations/:token', element: <InvitationPage /> },
    { path: '/login', element: <LoginPage /> },
    { path: '/signup', element: <SignupPage /> },
    { path: '/email-verified', element: <EmailVerifiedPage /> },
    { path: '/dashboard', element: <h1>Dashboard page</h1> },
  ], { initialEntries: [path] });
  render(<ServicesProvider services={services}><RouterProvider router={router} /></ServicesProvider>);
  return router;
}

describe('an invitation link opened while signed out', () => {
  it('names the workspace, the inviter and the role, and sign-in comes back to it', async () => {
    const services = testServices(scriptedApi({ [`GET /api/public/invitations/${TOKEN}`]: () => ok(PREVIEW) }), {
      login: vi.fn(async () => {
        services.auth.getState().setSession({ accessToken: 'a', refreshToken: 'r', user: { id: 2, username: 'bob', email: 'bob@example.com', timezone: 'UTC', two_factor_enabled: false } });
        return { ok: true as const };
      }),
    });
    const router = renderApp(services, `/invitations/${TOKEN}`);
    expect(await screen.findByTestId('invitation-summary')).toHaveTextContent('olivia invited bob@example.com to the workspace Ops team as editor.');
    expect(screen.getByRole('heading', { name: 'Join Ops team' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Accept invitation' })).toBeNull();
    const u = userEvent.setup();
    await u.click(screen.getByRole('link', { name: 'Sign in to accept' }));
    expect(router.state.location.pathname).toBe('/login');
    await u.type(screen.getByLabelText('Email'), 'bob@example.com');
    await u.type(screen.getByLabelText('Password'), 'correct horse');
    await u.click(screen.getByRole('button', { name: /sign in/i }));
    expect(await screen.findByRole('button', { name: 'Accept invitation' })).toBeVisible();
    expect(router.state.location.pathname).toBe(`/invitations/${TOKEN}`);
  });

  it('sign-up from the join page (also by way of the sign-in page) comes back to it', async () => {
    const services = testServices(scriptedApi({ [`GET /api/public/invitations/${TOKEN}`]: () => ok(PREVIEW) }), {
      signup: vi.fn(async () => {
        services.auth.getState().setSession({ accessToken: 'a', refreshToken: 'r', user: { id: 3, username: 'bobby', email: 'bob@example.com', timezone: 'UTC', two_factor_enabled: false } });
        return { ok: true as const };
      }),
    });
    const router = renderApp(services, `/invitations/${TOKEN}`);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('link', { name: 'Sign in to accept' }));
    await u.click(screen.getByRole('link', { name: 'Sign up' }));
    expect(router.state.location.pathname).toBe('/signup');
    await u.type(screen.getByLabelText('Username'), 'bobby');
    await u.type(screen.getByLabelText('Email'), 'bob@example.com');
    await u.type(screen.getByLabelText('Password'), 'correct horse');
    await u.type(screen.getByLabelText('Confirm Password'), 'correct horse');
    await u.click(screen.getByRole('button', { name: /create account/i }));
    expect(await screen.findByRole('button', { name: 'Accept invitation' })).toBeVisible();
    expect(router.state.location.pathname).toBe(`/invitations/${TOKEN}`);
  });

  it('a used or unknown link says so', async () => {
    renderApp(testServices(scriptedApi({})), `/invitations/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('Not found');
  });

  it('never sends anyone to another site after sign-in', async () => {
    const services = testServices(scriptedApi({}), { login: vi.fn(async () => ({ ok: true as const })) });
    const router = renderApp(services, '/login?next=//evil.example/x');
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'bob@example.com');
    await u.type(screen.getByLabelText('Password'), 'correct horse');
    await u.click(screen.getByRole('button', { name: /sign in/i }));
    expect(await screen.findByRole('heading', { name: 'Dashboard page' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});

describe('a verification link opened in a browser', () => {
  it('confirms on screen', () => {
    renderApp(testServices(scriptedApi({})), '/email-verified');
    expect(screen.getByRole('status')).toHaveTextContent('Your email address is confirmed.');
  });
  it('says why a used link did not work', () => {
    renderApp(testServices(scriptedApi({})), `/email-verified?error=${encodeURIComponent('This verification link is invalid or expired')}`);
    expect(screen.getByRole('alert')).toHaveTextContent('This verification link is invalid or expired. Send a new link from your Profile.');
  });
});
