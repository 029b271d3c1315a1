// Username, email and timezone; Save is enabled only when a value changed (SPEC section 5). A new
// email needs the current password, and with SMTP on the server it changes once its link is opened.
import { useState, type FormEvent } from 'react';
import type { Profile } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { TimeZoneSelect } from '../TimeZoneSelect';
import { Field } from '../Field';
import { Flash, useFlashCall } from './Flash';

const TEXTS = { ok: 'Profile updated successfully!', failed: 'Failed to update profile', crashed: 'An error occurred while updating profile' };

type ProfileFields = Pick<Profile, 'username' | 'email' | 'timezone'>;

export function ProfileForm({ initial, onSaved }: { initial: ProfileFields & Partial<Profile>; onSaved: (p: ProfileFields) => void }) {
  const { api } = useServices();
  const start = { username: initial.username, email: initial.email, timezone: initial.timezone };
  const [form, setForm] = useState<ProfileFields>(start);
  const [saved, setSaved] = useState<ProfileFields>(start);
  const [password, setPassword] = useState('');
  const [pending, setPending] = useState<string | null>(initial.pending_email ?? null);
  const { msg, busy, run } = useFlashCall();
  const emailChanged = form.email.trim().toLowerCase() !== saved.email.toLowerCase();
  const changed = form.username !== saved.username || form.email !== saved.email || form.timezone !== saved.timezone;
  const valid = form.username.trim() !== '' && form.email.trim() !== '' && (!emailChanged || password !== '');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!changed || !valid) return;
    const body = { username: form.username.trim(), email: form.email.trim(), timezone: form.timezone };
    let answer: Profile | null = null;
    await run(async () => {
      const r = await api.put<Profile>('/api/users/profile', emailChanged ? { ...body, current_password: password } : body);
      if (r.success) answer = r.data;
      return r;
    }, TEXTS, () => {
      // With SMTP the email stays the old one until the new address's link is opened.
      const now: ProfileFields = answer?.email ? { ...body, email: answer.email } : body;
      setSaved(now);
      setForm(now);
      setPassword('');
      setPending(answer?.pending_email ?? null);
      onSaved(now);
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <div className="form-grid">
        <Field id="profile-username" label="Username">
          <input id="profile-username" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} required autoComplete="username" />
        </Field>
        <Field id="profile-email" label="Email">
          <input id="profile-email" type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} required autoComplete="email" />
        </Field>
      </div>
      {emailChanged && (
        <Field id="profile-current-password" label="Current password (to change your email)">
          <input id="profile-current-password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} required autoComplete="current-password" />
        </Field>
      )}
      {pending && <p className="muted small" role="status">We sent a link to {pending}: your email changes once you open it.</p>}
      <Field id="profile-timezone" label="Timezone">
        <TimeZoneSelect id="profile-timezone" value={form.timezone} onChange={(timezone) => setForm({ ...form, timezone })} />
      </Field>
      <Flash msg={msg} />
      <button type="submit" className="btn btn-primary" disabled={!changed || !valid || busy}>Save Changes</button>
    </form>
  );
}
