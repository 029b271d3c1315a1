// Test helpers: real services (auth store, session monitor) around a scripted API client, so
// components run unchanged without module mocks.
import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { createStore } from 'zustand/vanilla';
import type { ApiClient, ApiResult, Method } from './api/client';
import { createAuthStore } from './stores/auth-store';
import { createSessionMonitor } from './session/session-monitor';
import { ServicesProvider } from './app-context';
import type { AppServices, AuthActions } from './services';

type Handler = (body: unknown) => ApiResult<unknown> | Promise<ApiResult<unknown>>;

interface ScriptedApi extends ApiClient {
  calls: Array<{ method: Method; path: string; body: unknown }>;
}

export const ok = <T,>(data: T, status = 200): ApiResult<T> => ({ success: true, data, status });
export const fail = (error: string, status = 400): ApiResult<never> => ({ success: false, error, status });

/** Routes are keyed 'METHOD /path'; unknown routes answer 404. */
export function scriptedApi(routes: Record<string, Handler>): ScriptedApi {
  const calls: ScriptedApi['calls'] = [];
  const request = async <T,>(method: Method, path: string, body?: unknown): Promise<ApiResult<T>> => {
    calls.push({ method, path, body });
    const h = routes[`${method} ${path}`] ?? routes[`${method} ${path.split('?')[0]}`];
    return (h ? await h(body) : fail('Not found', 404)) as ApiResult<T>;
  };
  return {
    calls,
    request,
    get: (p) => request('GET', p),
    post: (p, b) => request('POST', p, b ?? {}),
    put: (p, b) => request('PUT', p, b ?? {}),
    patch: (p, b) => request('PATCH', p, b ?? {}),
    del: (p) => request('DELETE', p),
    publicRequest: (m, p, b) => request(m, p, b),
  };
}

export function testServices(api: ApiClient, actions: Partial<AuthActions> = {}): AppServices {
  const auth = createAuthStore(localStorage);
  const sessionUi = createStore<{ warningSeconds: number | null }>(() => ({ warningSeconds: null }));
  const session = createSessionMonitor({ validate: () => undefined, logout: () => undefined, onWarning: (s) => sessionUi.setState({ warningSeconds: s }) });
  return {
    api,
    auth,
    sessionUi,
    session,
    actions: {
      login: async () => ({ ok: false, requires2FA: false, error: 'not scripted' }),
      signup: async () => ({ ok: false, error: 'not scripted' }),
      logout: async () => undefined,
      validateSession: async () => undefined,
      ...actions,
    },
  };
}

export function renderWith(ui: ReactElement, services: AppServices, path = '/') {
  const router = createMemoryRouter(
    [
      { path: '*', element: ui },
      { path: '/dashboard', element: <h1>Dashboard page</h1> },
    ],
    { initialEntries: [path] },
  );
  return { router, ...render(<ServicesProvider services={services}><RouterProvider router={router} /></ServicesProvider>) };
}
