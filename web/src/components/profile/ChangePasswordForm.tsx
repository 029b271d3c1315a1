// Current, new and confirmed password; the rules are the shared schema's (lib/validation).
import { useState, type FormEvent } from 'react';
import { useServices } from '../../app-context';
import { validatePasswordChange } from '../../lib/validation';
import { PasswordInput } from '../PasswordInput';
import { Flash, useFlashCall } from './Flash';

const TEXTS = { ok: 'Password changed successfully!', failed: 'Failed to change password', crashed: 'An error occurred while changing password' };

export function ChangePasswordForm() {
  const { api } = useServices();
  const [form, setForm] = useState({ current: '', next: '', confirm: '' });
  const { msg, setMsg, busy, run } = useFlashCall();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = validatePasswordChange(form.next, form.confirm);
    if (invalid) {
      setMsg({ kind: 'error', text: invalid });
      return;
    }
    const body = { current_password: form.current, new_password: form.next };
    await run(() => api.post('/api/users/change-password', body), TEXTS, () => setForm({ current: '', next: '', confirm: '' }));
  };

  return (
    <form onSubmit={submit} noValidate>
      <PasswordInput id="pw-current" label="Current Password" value={form.current} onChange={(v) => setForm({ ...form, current: v })} autoComplete="current-password" />
      <div className="form-grid">
        <PasswordInput id="pw-new" label="New Password" value={form.next} onChange={(v) => setForm({ ...form, next: v })} autoComplete="new-password" hint="Must be at least 8 characters long" />
        <PasswordInput id="pw-confirm" label="Confirm New Password" value={form.confirm} onChange={(v) => setForm({ ...form, confirm: v })} autoComplete="new-password" />
      </div>
      <Flash msg={msg} />
      <button type="submit" className="btn btn-primary" disabled={busy || !form.current || !form.next || !form.confirm}>Change Password</button>
    </form>
  );
}
