// The endpoint form's heartbeat part: a period or a cron with its time zone, the grace,
// the cron's next five runs shown in the user's time zone, and, once saved, the ping URL with a copy
// button and curl/crontab lines that follow the chosen schedule (read from GET /api/users/endpoints/:id;
// a member who may not see it gets none), and a button that replaces a leaked URL with a new one.
import { useEffect, useState } from 'react';
import { nextRuns, type HeartbeatSchedule } from '@upfleet/proto/heartbeat';
import type { Endpoint, EndpointCheck } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { copyText } from '../../lib/clipboard';
import { displayZone, formatDateTime } from '../../lib/format';
import { Field } from '../Field';
import { crontabLines, curlLine, scheduleLabel } from './heartbeat-text';
import { TimeZoneList } from '../TimeZoneSelect';

/** A new cron's zone and the zone its runs are shown in: the user's (format.ts). */
export const userTimeZone = displayZone;

const numberOr = (raw: string) => (raw.trim() === '' ? undefined : Number(raw));

export function HeartbeatFields({ value, onChange, urlId }: { value: EndpointCheck; onChange: (next: EndpointCheck) => void; urlId?: number }) {
  const usesCron = value.cron !== undefined;
  const runs = usesCron && value.cron!.trim().split(/\s+/).length === 5 ? nextRuns(value.cron!.trim(), value.timezone ?? 'UTC', Date.now()) : null;
  const show = (t: number) => formatDateTime(t);
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
              <input id="hb-timezone" list="hb-timezones" value={value.timezone ?? ''} onChange={(e) => onChange({ ...value, timezone: e.target.value })} placeholder="Europe/Berlin" />
              <TimeZoneList id="hb-timezones" />
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
      {urlId !== undefined && <PingUrl urlId={urlId} schedule={value} />}
    </fieldset>
  );
}

/** A saved heartbeat's ping URL, read from the server (absent for a member who may not see it). */
function PingUrl({ urlId, schedule }: { urlId: number; schedule: HeartbeatSchedule }) {
  const { api } = useServices();
  const [url, setUrl] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const rotate = async () => {
    if (!window.confirm('Replace the ping URL? The current one stops working at once; update your job with the new one.')) return;
    const r = await api.post<Endpoint>(`/api/users/endpoints/${urlId}/rotate-ping-url`);
    if (r.success && r.data?.ping_url) {
      setUrl(r.data.ping_url);
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
  return url ? <PingInstructions url={url} schedule={schedule} onRotate={() => void rotate()} note={note} /> : null;
}

function CopyButton({ text, label }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button type="button" className="btn btn-secondary btn-sm" aria-label={label && (copied ? `${label}: copied` : label)} onClick={() => void copyText(text).then(() => setCopied(true))}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** The ping URL and the curl and crontab lines for this schedule, each with a copy button. */
export function PingInstructions({ url, schedule, onRotate, note }: { url: string; schedule: HeartbeatSchedule; onRotate?: () => void; note?: string | null }) {
  const crontab = crontabLines(schedule, url);
  return (
    <div className="hb-ping-url">
      <Field id="hb-ping-url" label="Ping URL">
        <div className="input-group">
          <input id="hb-ping-url" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton key={url} text={url} />
          {onRotate && <button type="button" className="btn btn-secondary" onClick={onRotate}>New URL</button>}
        </div>
      </Field>
      {note && <p className="option-hint" role="status">{note}</p>}
      <p className="option-hint">At the end of your job (add <code>/start</code> before it to measure its run time, <code>/fail</code> or <code>/$?</code> for its exit code):</p>
      <div className="hb-example-row">
        <pre className="hb-example" aria-label="curl command">{curlLine(url)}</pre>
        <CopyButton text={curlLine(url)} label="Copy the curl command" />
      </div>
      {crontab ? (
        <div className="hb-example-row">
          <pre className="hb-example" aria-label="crontab line">{crontab}</pre>
          <CopyButton text={crontab} label="Copy the crontab line" />
        </div>
      ) : (
        <p className="option-hint">Run your job {scheduleLabel(schedule)} and call the URL when it ends.</p>
      )}
    </div>
  );
}
