import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { useAuth } from '../app-context';
import { Spinner } from './Spinner';

export function ProtectedRoute({ children }: { children: ReactNode }) {
  const status = useAuth((s) => s.status);
  const hasUser = useAuth((s) => !!s.user);
  const location = useLocation();
  if (status === 'loading') return <div className="page-loading"><Spinner /></div>;
  if (status !== 'authenticated' || !hasUser) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return <>{children}</>;
}
