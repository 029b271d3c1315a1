// Auth state (zustand): tokens and user live in localStorage so a reload keeps the session.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { User, AuthResult } from '@upfleet/proto/rest';

type AuthStatus = 'loading' | 'authenticated' | 'anonymous';

export interface AuthState {
  user: User | null;
  accessToken: string | null;
  refreshToken: string | null;
  status: AuthStatus;
  setSession(result: AuthResult): void;
  setTokens(accessToken: string, refreshToken?: string): void;
  setUser(user: User): void;
  setStatus(status: AuthStatus): void;
  clear(): void;
}

export const STORAGE_KEYS = { accessToken: 'accessToken', refreshToken: 'refreshToken', user: 'user' } as const;

function readUser(storage: Storage): User | null {
  try {
    const raw = storage.getItem(STORAGE_KEYS.user);
    return raw ? (JSON.parse(raw) as User) : null;
  } catch {
    return null;
  }
}

export type AuthStore = StoreApi<AuthState>;

/** Where other tabs' changes to the same storage are announced (window's 'storage' event). */
export interface StorageEvents {
  addEventListener(type: 'storage', listener: (e: StorageEvent) => void): void;
}

export function createAuthStore(storage: Storage, events?: StorageEvents): AuthStore {
  const accessToken = storage.getItem(STORAGE_KEYS.accessToken);
  const refreshToken = storage.getItem(STORAGE_KEYS.refreshToken);
  const store = createStore<AuthState>((set) => ({
    user: readUser(storage),
    accessToken,
    refreshToken,
    // With stored tokens the session is validated before protected pages render.
    status: accessToken || refreshToken ? 'loading' : 'anonymous',
    setSession(result) {
      storage.setItem(STORAGE_KEYS.accessToken, result.accessToken);
      storage.setItem(STORAGE_KEYS.refreshToken, result.refreshToken);
      storage.setItem(STORAGE_KEYS.user, JSON.stringify(result.user));
      set({ user: result.user, accessToken: result.accessToken, refreshToken: result.refreshToken, status: 'authenticated' });
    },
    setTokens(access, refresh) {
      storage.setItem(STORAGE_KEYS.accessToken, access);
      if (refresh) storage.setItem(STORAGE_KEYS.refreshToken, refresh);
      set((s) => ({ accessToken: access, refreshToken: refresh ?? s.refreshToken }));
    },
    setUser(user) {
      storage.setItem(STORAGE_KEYS.user, JSON.stringify(user));
      set({ user, status: 'authenticated' });
    },
    setStatus(status) {
      set({ status });
    },
    clear() {
      storage.removeItem(STORAGE_KEYS.accessToken);
      storage.removeItem(STORAGE_KEYS.refreshToken);
      storage.removeItem(STORAGE_KEYS.user);
      set({ user: null, accessToken: null, refreshToken: null, status: 'anonymous' });
    },
  }));
  // Refresh tokens rotate: when another tab refreshes (or signs out), take its tokens, or this
  // tab would present a spent token later and the server would end the session as stolen.
  events?.addEventListener('storage', (e) => {
    if (e.storageArea !== storage || (e.key !== null && !Object.values(STORAGE_KEYS).includes(e.key as never))) return;
    const access = storage.getItem(STORAGE_KEYS.accessToken);
    const refresh = storage.getItem(STORAGE_KEYS.refreshToken);
    if (!access && !refresh) {
      if (store.getState().status !== 'anonymous') store.setState({ user: null, accessToken: null, refreshToken: null, status: 'anonymous' });
      return;
    }
    store.setState({ accessToken: access, refreshToken: refresh, user: readUser(storage) ?? store.getState().user });
  });
  return store;
}

export function tokenStoreOf(auth: AuthStore) {
  return {
    getAccessToken: () => auth.getState().accessToken,
    getRefreshToken: () => auth.getState().refreshToken,
    setTokens: (a: string, r?: string) => auth.getState().setTokens(a, r),
  };
}
