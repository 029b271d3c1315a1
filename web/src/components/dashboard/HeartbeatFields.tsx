// The endpoint form's heartbeat part (issue 22): a period or a cron with its time zone, the grace,
// the cron's next five runs shown in the user's time zone, and, once saved, the ping URL with a copy
// button and curl/crontab examples (read from GET /api/users/endpoints/:id: editors and above see it),
// and a button that replaces a leaked URL with a new one.
import { useEffect, useState } from 'react';
import { nextRuns } from '@upfleet/proto/heartbeat';
import type { Endpoint, EndpointCheck } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { copyText } from '../../lib/clipboard';
import { Field } from '../Field';

export const userTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const numberOr = (raw: string) => (raw.trim() === '' ? undefined : Number(raw));

export function HeartbeatFields({ value, onChange, urlId }: { value: EndpointCheck; onChange(next: EndpointCheck): void; urlId?: number }) {
  const usesCron = value.cron !== undefined;
  const runs = usesCron && value.cron!.trim().split(/\s+/).length === 5 ? nextRuns(value.cron!.trim(), value.timezone ?? 'UTC', Date.now()) : null;
  const show = (t: number) => new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <fieldset className="fieldset">
      <legend>Schedule</legend>
      <div className="option-grid" role="radiogroup" aria-label="Schedule">
        <label className={`option compact${!usesCron ? ' selected' : ''}`}>
          <input type="radio" name="hb-schedule" checked={!usesCron} onChange={() => onChange({ ...value, cron: undefined, timezone: undefined, period_seconds: 3600 })} />
          <span className="option-title">Every period</span>
        </label>
        <label className={`option compact${usesCron ? ' selected' : ''}`}>
          <input type="radio" name="hb-schedule" checked={usesCron} onChange={() => onChange({ ...value, period_seconds: undefined, cron: '0 * * * *', timezone: userTimeZone() })} />
          <span className="option-title">Cron expression</span>
        </label>
      </div>
      <div className="form-grid">
        {!usesCron ? (
          <Field id="hb-period" label="Period (seconds, 60 to 2678400)">
            <input id="hb-period" type="number" min={60} value={value.period_seconds ?? ''} onChange={(e) => onChange({ ...value, period_seconds: numberOr(e.target.value) })} />
          </Field>
        ) : (
          <>
            <Field id="hb-cron" label="Cron (minute hour day month weekday)">
              <input id="hb-cron" value={value.cron} onChange={(e) => onChange({ ...value, cron: e.target.value })} placeholder="0 3 * * *" />
            </Field>
            <Field id="hb-timezone" label="Time zone">
              <input id="hb-timezone" value={value.timezone ?? ''} onChange={(e) => onChange({ ...value, timezone: e.target.value })} placeholder="Europe/Berlin" />
            </Field>
          </>
        )}
        <Field id="hb-grace" label="Grace (seconds)">
          <input id="hb-grace" type="number" min={0} value={value.grace_seconds ?? ''} onChange={(e) => onChange({ ...value, grace_seconds: numberOr(e.target.value) })} />
        </Field>
      </div>
      {usesCron && (
        <div className="hb-next-runs" aria-label="Next runs">
          <p className="option-hint">{runs ? `Next five runs (your time, ${userTimeZone()}):` : 'This cron expression does not parse.'}</p>
          {runs && <ul>{runs.map((t) => <li key={t}>{show(t)}</li>)}</ul>}
        </div>
      )}
      {urlId !== undefined && <PingUrl urlId={urlId} />}
    </fieldset>
  );
}

function PingUrl({ urlId }: { urlId: number }) {
  const { api } = useServices();
  const [url, setUrl] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const rotate = async () => {
    if (!window.confirm('Replace the ping URL? The current one stops working at once; update your job with the new one.')) return;
    const r = await api.post<Endpoint>(`/api/users/endpoints/${urlId}/rotate-ping-url`);
    if (r.success && r.data?.ping_url) {
      setUrl(r.data.ping_url);
      setCopied(false);
      setNote('New ping URL made: the old one no longer works.');
    } else {
      setNote(r.success ? 'No ping URL came back' : r.error ?? 'Could not replace the ping URL');
    }
  };
  useEffect(() => {
    let live = true;
    api.get<Endpoint>(`/api/users/endpoints/${urlId}`).then((r) => {
      if (live && r.success && r.data?.ping_url) setUrl(r.data.ping_url);
    }).catch(() => {});
    return () => {
      live = false;
    };
  }, [api, urlId]);
  if (!url) return null;
  return (
    <div className="hb-ping-url">
      <Field id="hb-ping-url" label="Ping URL">
        <div className="input-group">
          <input id="hb-ping-url" readOnly value={url} />
          <button type="button" className="btn btn-secondary" onClick={() => void copyText(url).then(() => setCopied(true))}>{copied ? 'Copied' : 'Copy'}</button>
          <button type="button" className="btn btn-secondary" onClick={() => void rotate()}>New URL</button>
        </div>
      </Field>
      {note && <p className="option-hint" role="status">{note}</p>}
      <p className="option-hint">At the end of your job (add <code>/start</code> before it to measure its run time, <code>/fail</code> or <code>/$?</code> for its exit code):</p>
      <pre className="hb-example">{`curl -fsS -m 10 --retry 5 ${url}`}</pre>
      <pre className="hb-example">{`0 3 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${url}`}</pre>
    </div>
  );
}
