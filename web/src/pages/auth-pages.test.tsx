import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SignupPage } from './SignupPage';
import { LoginPage } from './LoginPage';
import { fail, ok, renderWith, scriptedApi, testServices } from '../test-utils';
import { createServices } from '../services';
import { ServicesProvider } from '../app-context';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';

describe('Signup page', () => {
  async function fill(password: string, confirm: string, username = 'alice') {
    const services = testServices(scriptedApi({}), { signup: async () => ({ ok: false, error: 'Failed to create account' }) });
    renderWith(<SignupPage />, services, '/signup');
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Username'), username);
    await u.type(screen.getByLabelText('Email'), 'alice@example.com');
    await u.type(screen.getByLabelText('Password'), password);
    await u.type(screen.getByLabelText('Confirm Password'), confirm);
    await u.click(screen.getByRole('button', { name: 'Create Account' }));
    return services;
  }

  it("shows the hint and the Free plan list", () => {
    renderWith(<SignupPage />, testServices(scriptedApi({})), '/signup');
    expect(screen.getByText('Must be at least 8 characters long')).toBeInTheDocument();
    expect(screen.getByText(/10 endpoints/)).toBeInTheDocument();
    expect(screen.getByText(/30-day data retention/)).toBeInTheDocument();
  });
  it("says 'Passwords do not match'", async () => {
    await fill('password1', 'password2');
    expect(screen.getByRole('alert')).toHaveTextContent('Passwords do not match');
  });
  it("says 'Password must be at least 8 characters long'", async () => {
    await fill('short', 'short');
    expect(screen.getByRole('alert')).toHaveTextContent('Password must be at least 8 characters long');
  });
  it('refuses an email the server would refuse, with its message, before any request', async () => {
    let calls = 0;
    const services = testServices(scriptedApi({}), { signup: async () => ((calls += 1), { ok: false, error: 'Failed to create account' }) });
    renderWith(<SignupPage />, services, '/signup');
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Username'), 'alice');
    await u.type(screen.getByLabelText('Email'), 'alice@example');
    await u.type(screen.getByLabelText('Password'), 'password1');
    await u.type(screen.getByLabelText('Confirm Password'), 'password1');
    await u.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid email address');
    expect(calls).toBe(0);
  });
  it("falls back to 'Failed to create account'", async () => {
    await fill('password1', 'password1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to create account');
  });
});

describe('Login page', () => {
  function renderLogin(routes: Parameters<typeof scriptedApi>[0]) {
    // Real services (store + client) over a scripted fetch of the login route.
    const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}');
      const h = routes[`POST ${path}`];
      const res = h ? await h(body) : fail('nope', 404);
      const { status, ...rest } = res;
      return new Response(JSON.stringify(rest), { status, headers: { 'content-type': 'application/json' } });
    };
    const router = createMemoryRouter([{ path: '/login', element: <LoginPage /> }, { path: '/dashboard', element: <h1>Dashboard page</h1> }], { initialEntries: ['/login'] });
    const services = createServices({ storage: localStorage, navigate: (p) => void router.navigate(p), fetch: fetchImpl });
    render(<ServicesProvider services={services}><RouterProvider router={router} /></ServicesProvider>);
    return services;
  }
  const user = { id: 1, username: 'alice', email: 'a@example.com', timezone: 'UTC', two_factor_enabled: true };

  it("shows the server's error or 'Invalid email or password'", async () => {
    renderLogin({ 'POST /api/auth/login': () => ({ success: false, error: '', status: 401 }) });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'whatever1');
    await u.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
  });

  it('toggles password visibility', async () => {
    renderLogin({});
    const u = userEvent.setup();
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    await u.click(screen.getByRole('button', { name: 'Show password' }));
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'text');
  });

  it('asks for a 2FA code: digits only, max 6, Verify only at 6, then stores the session and goes to /dashboard', async () => {
    const services = renderLogin({
      'POST /api/auth/login': (b) => {
        const body = b as { two_factor_code?: string };
        if (!body.two_factor_code) return { success: false, error: 'Two-factor code required', requires2FA: true, status: 401 };
        if (body.two_factor_code !== '123456') return { success: false, error: 'Invalid verification code', requires2FA: true, status: 401 };
        return ok({ user, accessToken: 'acc', refreshToken: 'ref' });
      },
    });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'password1');
    await u.click(screen.getByRole('button', { name: 'Sign In' }));
    const code = await screen.findByLabelText('Verification code');
    const verify = screen.getByRole('button', { name: 'Verify' });
    await u.type(code, '12a34');
    expect(code).toHaveValue('1234');
    expect(verify).toBeDisabled();
    await u.type(code, '9999');
    expect(code).toHaveValue('123499');
    expect(verify).toBeEnabled();
    await u.click(verify);
    expect(await screen.findByText('Invalid verification code')).toBeInTheDocument();
    await u.clear(code);
    await u.type(code, '123456');
    await u.click(verify);
    expect(await screen.findByRole('heading', { name: 'Dashboard page' })).toBeInTheDocument();
    expect(localStorage.getItem('accessToken')).toBe('acc');
    expect(JSON.parse(localStorage.getItem('user')!).username).toBe('alice');
    expect(services.auth.getState().status).toBe('authenticated');
  });

  it("says 'Network error' when the server cannot be reached", async () => {
    renderLogin({ 'POST /api/auth/login': () => { throw new TypeError('fetch failed'); } });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'password1');
    await u.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Network error'));
  });
});
