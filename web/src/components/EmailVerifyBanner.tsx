// Asks a signed-in user with an unverified email to open the link we mailed, and offers a resend
// (POST /api/auth/resend-verification, 3 an hour). Without SMTP on the server every address is
// verified and nothing shows.
import { useEffect, useState } from 'react';
import type { Profile } from '@upfleet/proto/rest';
import { useAuth, useServices } from '../app-context';

export function EmailVerifyBanner() {
  const { api } = useServices();
  const userId = useAuth((s) => s.user?.id ?? null);
  const [profile, setProfile] = useState<Profile | null>(null);
  const [msg, setMsg] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setProfile(null);
    if (userId === null) return;
    let live = true;
    api.get<Profile>('/api/users/profile').then((r) => {
      if (live && r.success) setProfile(r.data);
    }).catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, userId]);

  if (!profile || profile.email_verified !== false) return null;
  const resend = async () => {
    setBusy(true);
    const r = await api.post<{ email: string }>('/api/auth/resend-verification').catch(() => null);
    setMsg(r?.success ? `Sent again to ${r.data.email}.` : (r?.error ?? 'Could not send the email, please try again later.'));
    setBusy(false);
  };
  return (
    <div className="container">
      <div className="alert alert-warning" role="status" data-testid="verify-email-banner">
        <span>
          Please verify your email address: open the link we sent to <strong>{profile.email}</strong>. Until then email and SMS
          alerts are not sent and a checkout paid with this address cannot be claimed.
        </span>
        <button type="button" className="btn btn-sm" onClick={resend} disabled={busy}>Resend email</button>
        {msg && <span>{msg}</span>}
      </div>
    </div>
  );
}
