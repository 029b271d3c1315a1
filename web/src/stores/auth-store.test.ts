import { beforeEach, describe, expect, it } from 'vitest';
import { createAuthStore, STORAGE_KEYS } from './auth-store';

const user = { id: 1, username: 'alice', email: 'alice@example.com', timezone: 'UTC', two_factor_enabled: false };

/** What the browser does in this tab when another tab writes the same localStorage. */
function otherTab(write: () => void, key: string | null) {
  write();
  window.dispatchEvent(new StorageEvent('storage', { key, storageArea: localStorage }));
}

beforeEach(() => localStorage.clear());

describe('auth store across tabs', () => {
  it("takes the tokens another tab rotated, so this tab never presents a spent refresh token", () => {
    const store = createAuthStore(localStorage, window);
    store.getState().setSession({ user, accessToken: 'a1', refreshToken: 'r1' });
    otherTab(() => {
      localStorage.setItem(STORAGE_KEYS.accessToken, 'a2');
      localStorage.setItem(STORAGE_KEYS.refreshToken, 'r2');
    }, STORAGE_KEYS.refreshToken);
    expect(store.getState()).toMatchObject({ accessToken: 'a2', refreshToken: 'r2', status: 'authenticated' });
  });

  it('signs this tab out when another tab signs out', () => {
    const store = createAuthStore(localStorage, window);
    store.getState().setSession({ user, accessToken: 'a1', refreshToken: 'r1' });
    otherTab(() => localStorage.clear(), null);
    expect(store.getState()).toMatchObject({ accessToken: null, refreshToken: null, user: null, status: 'anonymous' });
  });

  it('ignores unrelated keys', () => {
    const store = createAuthStore(localStorage, window);
    store.getState().setSession({ user, accessToken: 'a1', refreshToken: 'r1' });
    otherTab(() => localStorage.setItem('theme', 'dark'), 'theme');
    expect(store.getState().accessToken).toBe('a1');
  });
});
