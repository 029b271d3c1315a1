import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { AppServices } from './services';
import type { AuthState } from './stores/auth-store';

const ServicesContext = createContext<AppServices | null>(null);

export function ServicesProvider({ services, children }: { services: AppServices; children: ReactNode }) {
  return <ServicesContext.Provider value={services}>{children}</ServicesContext.Provider>;
}

export function useServices(): AppServices {
  const s = useContext(ServicesContext);
  if (!s) throw new Error('ServicesProvider is missing');
  return s;
}

export function useAuth<T>(selector: (s: AuthState) => T): T {
  return useStore(useServices().auth, selector);
}
