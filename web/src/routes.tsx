import { lazy, Suspense, type ReactNode } from 'react';
import { Outlet, type RouteObject } from 'react-router-dom';
import { Navbar } from './components/Navbar';
import { EmailVerifyBanner } from './components/EmailVerifyBanner';
import { ProtectedRoute } from './components/ProtectedRoute';
import { SessionTimeoutModal } from './components/SessionTimeoutModal';
import { SessionWatcher } from './components/SessionWatcher';
import { Spinner } from './components/Spinner';
import { HomePage } from './pages/HomePage';
import { AboutPage } from './pages/AboutPage';
import { PricingPage } from './pages/PricingPage';
import { ContactPage } from './pages/ContactPage';
import { LoginPage } from './pages/LoginPage';
import { SignupPage } from './pages/SignupPage';
import { NotFoundPage } from './pages/NotFoundPage';

// Signed-in pages load on demand so the public pages' first load stays small.
const DashboardPage = lazy(() => import('./pages/DashboardPage').then((m) => ({ default: m.DashboardPage })));
const AlertSettingsPage = lazy(() => import('./pages/AlertSettingsPage').then((m) => ({ default: m.AlertSettingsPage })));
const MembersPage = lazy(() => import('./pages/MembersPage').then((m) => ({ default: m.MembersPage })));
const AuditLogPage = lazy(() => import('./pages/AuditLogPage').then((m) => ({ default: m.AuditLogPage })));
const InvitationPage = lazy(() => import('./pages/SsoPages').then((m) => ({ default: m.InvitationPage })));
const EmailVerifiedPage = lazy(() => import('./pages/SsoPages').then((m) => ({ default: m.EmailVerifiedPage })));
const SsoCallbackPage = lazy(() => import('./pages/SsoPages').then((m) => ({ default: m.SsoCallbackPage })));
const StatusPagesPage = lazy(() => import('./pages/StatusPagesPage').then((m) => ({ default: m.StatusPagesPage })));
const IncidentsPage = lazy(() => import('./pages/IncidentsPage').then((m) => ({ default: m.IncidentsPage })));
const ReportsPage = lazy(() => import('./pages/ReportsPage').then((m) => ({ default: m.ReportsPage })));
const ProfilePage = lazy(() => import('./pages/ProfilePage').then((m) => ({ default: m.ProfilePage })));

function Layout() {
  return (
    <div className="app">
      <a href="#main" className="skip-link">Skip to content</a>
      <Navbar />
      <EmailVerifyBanner />
      <main id="main" className="main">
        <Outlet />
      </main>
      <footer className="footer">
        <div className="container footer-inner">
          <span>© {new Date().getFullYear()} Upfleet. Uptime monitoring from every region.</span>
        </div>
      </footer>
      <SessionWatcher />
      <SessionTimeoutModal />
    </div>
  );
}

const protectedPage = (page: ReactNode) => (
  <ProtectedRoute>
    <Suspense fallback={<div className="page-loading"><Spinner /></div>}>{page}</Suspense>
  </ProtectedRoute>
);

export const appRoutes: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/about', element: <AboutPage /> },
      { path: '/pricing', element: <PricingPage /> },
      { path: '/contact', element: <ContactPage /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/signup', element: <SignupPage /> },
      { path: '/dashboard', element: protectedPage(<DashboardPage />) },
      { path: '/incidents', element: protectedPage(<IncidentsPage />) },
      { path: '/incidents/:id', element: protectedPage(<IncidentsPage />) },
      { path: '/alert-settings', element: protectedPage(<AlertSettingsPage />) },
      { path: '/status-pages', element: protectedPage(<StatusPagesPage />) },
      { path: '/reports', element: protectedPage(<ReportsPage />) },
      { path: '/profile', element: protectedPage(<ProfilePage />) },
      { path: '/members', element: protectedPage(<MembersPage />) },
      { path: '/audit-log', element: protectedPage(<AuditLogPage />) },
      // Public: a signed-out person sees the invitation and signs in or up from there.
      { path: '/invitations/:token', element: <Suspense fallback={<Spinner />}><InvitationPage /></Suspense> },
      { path: '/email-verified', element: <Suspense fallback={<Spinner />}><EmailVerifiedPage /></Suspense> },
      { path: '/login/sso', element: <Suspense fallback={<Spinner />}><SsoCallbackPage /></Suspense> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
