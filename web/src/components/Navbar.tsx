import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { useAuth, useServices } from '../app-context';
import { LogoIcon, MenuIcon, CloseIcon } from './Icons';
import { roleAllows, useWorkspaces } from '../lib/workspaces';
import { NewWorkspaceModal } from './NewWorkspaceModal';

export function Navbar() {
  const { actions } = useServices();
  const user = useAuth((s) => s.user);
  const signedIn = useAuth((s) => s.status === 'authenticated' && !!s.user);
  const [mobileOpen, setMobileOpen] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  const location = useLocation();
  const workspaces = useWorkspaces();

  useEffect(() => {
    setMobileOpen(false);
    setMenuOpen(false);
  }, [location.pathname]);

  useEffect(() => {
    if (!menuOpen) return;
    const onDown = (e: MouseEvent) => {
      if (menuRef.current && !menuRef.current.contains(e.target as Node)) setMenuOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMenuOpen(false);
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [menuOpen]);

  // Signed in, the workspace's pages take the bar: the logo leads home, About stays with the
  // signed-out site and Profile with the user menu (all of them overflowed the bar at 1440 px).
  const links = [
    ...(signedIn ? [] : [{ to: '/', label: 'Home', end: true }, { to: '/about', label: 'About' }]),
    { to: '/pricing', label: 'Pricing' },
    ...(signedIn
      ? [
          { to: '/dashboard', label: 'Dashboard' },
          { to: '/incidents', label: 'Incidents' },
          { to: '/alert-settings', label: 'Alert Settings' },
          { to: '/status-pages', label: 'Status pages' },
          { to: '/reports', label: 'Reports' },
          { to: '/members', label: 'Members' },
          ...(roleAllows(workspaces.role, 'admin') ? [{ to: '/audit-log', label: 'Audit Log' }] : []),
        ]
      : []),
  ];
  // The bar's user menu has Profile; the phone menu has no user menu, so it lists it.
  const mobileLinks = signedIn ? [...links, { to: '/profile', label: 'Profile', end: false }] : links;
  const initial = (user?.username ?? '?').slice(0, 1).toUpperCase();

  return (
    <header className="navbar">
      <nav className="navbar-inner container" aria-label="Main">
        <Link to="/" className="brand" aria-label="Upfleet home">
          <LogoIcon width={28} height={28} className="brand-logo" />
          <span>Upfleet</span>
        </Link>
        <ul className="nav-links">
          {links.map((l) => (
            <li key={l.to}>
              <NavLink to={l.to} end={l.end} className={({ isActive }) => `nav-link${isActive ? ' active' : ''}`}>
                {l.label}
              </NavLink>
            </li>
          ))}
        </ul>
        <div className="nav-actions">
          {signedIn && workspaces.list && workspaces.current && (
            <label className="workspace-switcher">
              <span className="sr-only">Workspace</span>
              <select
                aria-label="Workspace"
                value={workspaces.current.id}
                onChange={(e) => workspaces.select(Number(e.target.value))}
              >
                {workspaces.list.map((w) => (
                  <option key={w.id} value={w.id}>{w.personal ? `${w.name} (you)` : w.name} · {w.role}</option>
                ))}
              </select>
            </label>
          )}
          {signedIn && user ? (
            <div className="user-menu" ref={menuRef}>
              <button
                type="button"
                className="user-menu-button"
                aria-haspopup="menu"
                aria-expanded={menuOpen}
                onClick={() => setMenuOpen((o) => !o)}
              >
                <span className="avatar" aria-hidden="true">{initial}</span>
                <span className="user-menu-name">{user.username}</span>
              </button>
              {menuOpen && (
                <div className="user-menu-dropdown" role="menu">
                  <div className="user-menu-header">
                    <strong>{user.username}</strong>
                    <span>{user.email}</span>
                  </div>
                  <Link role="menuitem" to="/profile" className="menu-item">Profile</Link>
                  <button role="menuitem" type="button" className="menu-item" onClick={() => { setMenuOpen(false); setCreating(true); }}>New workspace</button>
                  <button role="menuitem" type="button" className="menu-item" onClick={() => void actions.logout()}>Sign Out</button>
                </div>
              )}
            </div>
          ) : (
            <div className="auth-buttons">
              <Link to="/login" className="btn btn-ghost">Sign In</Link>
              <Link to="/signup" className="btn btn-primary">Get Started</Link>
            </div>
          )}
          <button
            type="button"
            className="icon-btn mobile-toggle"
            aria-label={mobileOpen ? 'Close menu' : 'Open menu'}
            aria-expanded={mobileOpen}
            aria-controls="mobile-menu"
            onClick={() => setMobileOpen((o) => !o)}
          >
            {mobileOpen ? <CloseIcon /> : <MenuIcon />}
          </button>
        </div>
      </nav>
      {creating && <NewWorkspaceModal onClose={() => setCreating(false)} onCreated={(id) => workspaces.select(id)} />}
      {mobileOpen && (
        <div id="mobile-menu" className="mobile-menu">
          {signedIn && user && (
            <div className="mobile-user">
              <span className="avatar" aria-hidden="true">{initial}</span>
              <div>
                <div className="mobile-username">{user.username}</div>
                <div className="mobile-email">{user.email}</div>
              </div>
            </div>
          )}
          {mobileLinks.map((l) => (
            <NavLink key={l.to} to={l.to} end={l.end} className={({ isActive }) => `mobile-link${isActive ? ' active' : ''}`}>
              {l.label}
            </NavLink>
          ))}
          {signedIn ? (
            <button type="button" className="btn btn-secondary btn-block" onClick={() => void actions.logout()}>Sign Out</button>
          ) : (
            <div className="mobile-auth">
              <Link to="/login" className="btn btn-secondary btn-block">Sign In</Link>
              <Link to="/signup" className="btn btn-primary btn-block">Get Started</Link>
            </div>
          )}
        </div>
      )}
    </header>
  );
}
