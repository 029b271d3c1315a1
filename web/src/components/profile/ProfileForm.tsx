// Username, email and timezone; Save is enabled only when a value changed (SPEC section 5).
import { useState, type FormEvent } from 'react';
import type { Profile } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { TIMEZONES } from '../../lib/format';
import { Field } from '../Field';
import { Flash, useFlashCall } from './Flash';

const TEXTS = { ok: 'Profile updated successfully!', failed: 'Failed to update profile', crashed: 'An error occurred while updating profile' };

export function ProfileForm({ initial, onSaved }: { initial: Profile; onSaved(p: Profile): void }) {
  const { api } = useServices();
  const [form, setForm] = useState<Profile>(initial);
  const [saved, setSaved] = useState<Profile>(initial);
  const { msg, busy, run } = useFlashCall();
  const changed = form.username !== saved.username || form.email !== saved.email || form.timezone !== saved.timezone;
  const valid = form.username.trim() !== '' && form.email.trim() !== '';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!changed || !valid) return;
    const body = { username: form.username.trim(), email: form.email.trim(), timezone: form.timezone };
    await run(() => api.put('/api/users/profile', body), TEXTS, () => {
      setSaved(body);
      setForm(body);
      onSaved(body);
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
      <Field id="profile-timezone" label="Timezone">
        <select id="profile-timezone" value={form.timezone} onChange={(e) => setForm({ ...form, timezone: e.target.value })}>
          {TIMEZONES.map((tz) => (<option key={tz} value={tz}>{tz}</option>))}
        </select>
      </Field>
      <Flash msg={msg} />
      <button type="submit" className="btn btn-primary" disabled={!changed || !valid || busy}>Save Changes</button>
    </form>
  );
}
