import { useEffect, useState } from 'react';
import type { Dashboard, Package, Profile, Subscription } from '@upfleet/proto/rest';
import { useAuth, useServices } from '../app-context';
import { Spinner } from '../components/Spinner';
import { ChangePasswordForm } from '../components/profile/ChangePasswordForm';
import { ProfileForm } from '../components/profile/ProfileForm';
import { ApiKeysCard } from '../components/profile/ApiKeysCard';
import { SUBSCRIPTION_PATH, SubscriptionCard } from '../components/profile/SubscriptionCard';
import { TwoFactorCard } from '../components/profile/TwoFactorCard';
import { formatPrice, subscriptionTone } from '../lib/format';

export function ProfilePage() {
  const { api, auth } = useServices();
  const user = useAuth((s) => s.user);
  const [profile, setProfile] = useState<Profile | null>(null);
  // status null: no subscription (a plan set without checkout, or Free), said the same way as the card below.
  const [account, setAccount] = useState<{ name: string; price: string; status: string | null; apiAccess: boolean } | null>(null);
  const [sub, setSub] = useState<Subscription | null | 'error' | undefined>(undefined);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const [p, d, s, pk] = await Promise.all([
          api.get<Profile>('/api/users/profile'),
          api.get<Dashboard>('/api/users/dashboard'),
          api.get<Subscription | null>(SUBSCRIPTION_PATH),
          api.publicRequest<Package[]>('GET', '/api/public/packages'),
        ]);
        if (!live) return;
        if (p.success) setProfile({ ...p.data, timezone: p.data.timezone || 'UTC' });
        const sub = s.success ? s.data : null;
        setSub(s.success || s.status === 404 ? sub : 'error');
        const name = sub?.package_name ?? (d.success ? d.data.package_name : '') ?? 'Free';
        const pkg = pk.success ? pk.data.find((x) => x.package_name === name) : undefined;
        setAccount({
          name: name || 'Free',
          price: sub ? formatPrice(sub.price, sub.currency) : formatPrice(pkg?.price ?? 0, pkg?.currency),
          status: sub?.status ?? null,
          apiAccess: pkg?.api_access ?? false,
        });
      } catch (err) {
        console.error('load profile failed', err);
        if (live) setSub('error');
      }
    })();
    return () => {
      live = false;
    };
  }, [api]);

  return (
    <div className="container page">
      <header className="dash-header">
        <div>
          <h1>Profile Settings</h1>
          <p className="page-sub">Manage your account, security and billing.</p>
        </div>
      </header>
      <div className="profile-grid">
        <div className="profile-col">
          <section className="card settings-card account-card" aria-labelledby="account-title">
            <h2 id="account-title">Account Information</h2>
            <div className="account-head">
              <span className="avatar avatar-lg" aria-hidden="true">{(user?.username ?? '?').slice(0, 1).toUpperCase()}</span>
              <div>
                <div className="strong">{user?.username}</div>
                <div className="muted small">{user?.email}</div>
              </div>
            </div>
            {account ? (
              <dl className="detail-list">
                <div><dt>Package</dt><dd>{account.name}</dd></div>
                <div><dt>Price</dt><dd>{account.price}/month</dd></div>
                <div><dt>Status</dt><dd>{account.status
                  ? <span className={`badge badge-${subscriptionTone(account.status)}`}>{account.status}</span>
                  : <span className="badge badge-grey">No subscription</span>}</dd></div>
              </dl>
            ) : (
              <Spinner />
            )}
          </section>
          <SubscriptionCard loaded={sub === undefined ? 'loading' : sub} />
          {account?.apiAccess && <ApiKeysCard />}
        </div>
        <div className="profile-col">
          <section className="card settings-card" aria-labelledby="profile-title">
            <h2 id="profile-title">Profile</h2>
            {profile ? (
              <ProfileForm
                initial={profile}
                onSaved={(p) => {
                  const u = auth.getState().user;
                  if (u) auth.getState().setUser({ ...u, username: p.username, email: p.email, timezone: p.timezone });
                }}
              />
            ) : (
              <Spinner />
            )}
          </section>
          <section className="card settings-card" aria-labelledby="password-title">
            <h2 id="password-title">Change Password</h2>
            <ChangePasswordForm />
          </section>
          <TwoFactorCard />
        </div>
      </div>
    </div>
  );
}
