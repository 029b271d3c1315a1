// Wires the app's parts once (main.tsx) or per test: auth store, request helper, auth actions and
// the session monitor. Nothing is created at import time.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AuthResult, User } from '@upfleet/proto/rest';
import { MESSAGES } from '@upfleet/proto/rest';
import { createApiClient, AuthenticationError, type ApiClient } from './api/client';
import { setDisplayZone } from './lib/format';
import { createAuthStore, tokenStoreOf, type AuthStore, type StorageEvents } from './stores/auth-store';
import { createSessionMonitor, type SessionMonitor, type SessionMonitorDeps } from './session/session-monitor';

export const WORKSPACE_STORAGE_KEY = 'upfleetWorkspace';
/** The id of an account made in this browser that has not seen its dashboard yet ("Welcome", not "Welcome back"). */
export const NEW_ACCOUNT_STORAGE_KEY = 'upfleetNewAccount';

type LoginOutcome = { ok: true } | { ok: false; requires2FA: boolean; error: string };

export interface AuthActions {
  /** `checkoutSession`: a paid anonymous checkout to attach to the account (from /signup?checkout_session=). */
  login(email: string, password: string, twoFactorCode?: string, checkoutSession?: string): Promise<LoginOutcome>;
  signup(username: string, email: string, password: string, checkoutSession?: string): Promise<{ ok: true } | { ok: false; error: string }>;
  logout(): Promise<void>;
  validateSession(): Promise<void>;
}

interface SessionUiState { warningSeconds: number | null }

export interface AppServices {
  api: ApiClient;
  auth: AuthStore;
  actions: AuthActions;
  session: SessionMonitor;
  sessionUi: StoreApi<SessionUiState>;
  /** Where the workspace choice is kept (localStorage in the browser). */
  storage?: Storage;
}

interface ServicesDeps {
  storage: Storage;
  /** The window, so tabs share rotated tokens through 'storage' events. */
  storageEvents?: StorageEvents;
  navigate(path: string): void;
  fetch?: typeof fetch;
  baseUrl?: string;
  sessionLimits?: SessionMonitorDeps['limits'];
}

export function createServices(deps: ServicesDeps): AppServices {
  const auth = createAuthStore(deps.storage, deps.storageEvents);
  // Dates on screen are shown in the user's profile zone once the user is known (lib/format.ts).
  setDisplayZone(auth.getState().user?.timezone);
  auth.subscribe((s) => setDisplayZone(s.user?.timezone));
  const goLogin = (): void => {
    auth.getState().clear();
    deps.navigate('/login');
  };
  // The workspace switcher's choice, remembered per browser.
  const workspaceId = () => deps.storage.getItem(WORKSPACE_STORAGE_KEY);
  const api = createApiClient({ tokens: tokenStoreOf(auth), onAuthFailure: goLogin, fetch: deps.fetch, baseUrl: deps.baseUrl, workspaceId });
  const sessionUi = createStore<SessionUiState>(() => ({ warningSeconds: null }));

  const actions: AuthActions = {
    async login(email, password, twoFactorCode, checkoutSession) {
      try {
        const body = {
          email, password,
          ...(twoFactorCode ? { two_factor_code: twoFactorCode } : {}),
          ...(checkoutSession ? { checkout_session: checkoutSession } : {}),
        };
        const res = await api.publicRequest<AuthResult>('POST', '/api/auth/login', body);
        if (res.success) {
          auth.getState().setSession(res.data);
          return { ok: true };
        }
        if (res.requires2FA) {
          return { ok: false, requires2FA: true, error: twoFactorCode ? res.error || MESSAGES.invalidCode : '' };
        }
        return { ok: false, requires2FA: false, error: res.error || MESSAGES.invalidCredentials };
      } catch {
        return { ok: false, requires2FA: false, error: 'Network error' };
      }
    },
    async signup(username, email, password, checkoutSession) {
      try {
        const body = { username, email, password, ...(checkoutSession ? { checkout_session: checkoutSession } : {}) };
        const res = await api.publicRequest<AuthResult>('POST', '/api/auth/signup', body);
        if (res.success) {
          auth.getState().setSession(res.data);
          deps.storage.setItem(NEW_ACCOUNT_STORAGE_KEY, String(res.data.user.id));
          return { ok: true };
        }
        return { ok: false, error: res.error || 'Failed to create account' };
      } catch {
        return { ok: false, error: 'Failed to create account' };
      }
    },
    async logout() {
      session.stop();
      try {
        await api.publicRequest('POST', '/api/auth/logout', { refreshToken: auth.getState().refreshToken }, true);
      } catch (err) {
        console.error('logout request failed', err);
      }
      goLogin();
    },
    async validateSession() {
      const state = auth.getState();
      if (!state.accessToken && !state.refreshToken) {
        state.setStatus('anonymous');
        return;
      }
      try {
        const res = await api.get<User>('/api/auth/validate-session');
        if (res.success && res.data) auth.getState().setUser(res.data);
        else if (auth.getState().status === 'loading') auth.getState().setStatus(state.user ? 'authenticated' : 'anonymous');
      } catch (err) {
        if (err instanceof AuthenticationError) return; // already cleared and sent to /login
        // Offline: keep the stored session rather than signing the user out.
        if (auth.getState().status === 'loading') auth.getState().setStatus(auth.getState().user ? 'authenticated' : 'anonymous');
      }
    },
  };

  const session = createSessionMonitor({
    validate: () => actions.validateSession(),
    logout: () => void actions.logout(),
    onWarning: (s) => sessionUi.setState({ warningSeconds: s }),
    limits: deps.sessionLimits,
  });

  return { api, auth, actions, session, sessionUi, storage: deps.storage };
}
