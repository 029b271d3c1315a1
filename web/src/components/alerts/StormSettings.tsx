// The workspace's storm setting: more than `group_threshold` incidents opening within 60 s are
// grouped into one message per alert method (admins change it; others see it).
import { useEffect, useState, type FormEvent } from 'react';
import { AlertSettingsBody } from '@upfleet/proto/schemas';
import { useServices } from '../../app-context';
import { Field, hintId } from '../Field';

const HINT = 'When more incidents than this open in this workspace within 60 seconds, each alert method gets one grouped message listing them (with an acknowledge link for each and one for all) instead of one per incident, and their recoveries are grouped too. Every new incident\'s first message waits a few seconds (3 unless the server sets ALERT_GROUP_HOLD_SECONDS) so a storm can be seen; later steps of an escalation policy still go out per incident. 2 to 100; default 5.';

export function StormSettings({ manage }: { manage: boolean }) {
  const { api } = useServices();
  const [saved, setSaved] = useState<number | null>(null);
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');

  useEffect(() => {
    void (async () => {
      const res = await api.get<{ group_threshold: number }>('/api/users/alert-settings');
      if (res.success && res.data) {
        setSaved(res.data.group_threshold);
        setValue(String(res.data.group_threshold));
      }
    })();
  }, [api]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setNotice('');
    const parsed = AlertSettingsBody.safeParse({ group_threshold: value.trim() === '' ? NaN : Number(value) });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'group_threshold must be a whole number from 2 to 100');
    const res = await api.put<{ group_threshold: number }>('/api/users/alert-settings', parsed.data);
    if (!res.success) return setError(res.error || 'The setting could not be saved');
    setError('');
    setSaved(res.data?.group_threshold ?? parsed.data.group_threshold);
    setNotice('Saved');
  };

  // The input stays in place whatever the role (the role arrives after the first render); only an
  // admin gets the form it belongs to, so a viewer is shown the setting, not a form the server refuses.
  return (
    <section className="card" aria-label="Storms">
      <h2>Storms</h2>
      <Field id="storm-threshold" label="Group threshold" error={error || undefined} hint={HINT}>
        <input id="storm-threshold" form="storm-settings" type="number" min={2} max={100} step={1} value={value} disabled={!manage || saved === null} aria-describedby={hintId('storm-threshold')}
          onChange={(e) => setValue(e.target.value)} />
      </Field>
      {manage && (
        <form id="storm-settings" onSubmit={(e) => void save(e)} noValidate>
          <button type="submit" className="btn btn-primary" disabled={saved === null}>Save</button>
          {notice && <span role="status" className="form-notice"> {notice}</span>}
        </form>
      )}
    </section>
  );
}
