// "Run now" in the endpoint form: the browser check as it stands (unsaved) runs once on an agent and
// its result is shown: pass or the failing step and why, timings, each step's time, console errors,
// failed requests and the screenshots (data: URLs; the CSP's img-src allows data:).
import { useState } from 'react';
import type { EndpointCheck } from '@upfleet/proto/rest';
import type { BrowserRunResult } from '@upfleet/proto/schemas';
import { useServices } from '../../app-context';
import { stepError } from './BrowserStepsEditor';

const ms = (v: number) => (v > 0 ? `${Math.round(v)} ms` : '–');

export function BrowserRunPanel({ url, check, urlId, keptSecrets }: {
  url: string;
  check: EndpointCheck;
  /** the saved endpoint being edited: its secret fills left blank are taken from it */
  urlId?: number;
  keptSecrets: Set<string>;
}) {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [result, setResult] = useState<BrowserRunResult | null>(null);
  const steps = check.steps ?? [];

  const run = async () => {
    const bad = steps.map((s, i) => stepError(s, i, (sel) => keptSecrets.has(sel))).find((e) => e !== null);
    if (!url.trim()) return setError('URL is required');
    if (bad) return setError(bad);
    setError('');
    setResult(null);
    setBusy(true);
    try {
      const r = await api.post<BrowserRunResult>('/api/users/endpoints/browser-run', {
        url: url.trim(), steps, ...(check.timeout_seconds !== undefined ? { timeout_seconds: check.timeout_seconds } : {}), ...(urlId !== undefined ? { url_id: urlId } : {}),
      });
      if (r.success && r.data) setResult(r.data);
      else setError(r.success ? 'No result came back' : r.error ?? 'The run failed');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="fieldset browser-run" aria-label="Run now">
      <div className="row-inline">
        <button type="button" className="btn btn-secondary" onClick={() => void run()} disabled={busy}>{busy ? 'Running…' : 'Run now'}</button>
        <span className="option-hint">Runs the steps once on an agent, without saving; nothing is recorded.</span>
      </div>
      {error && <p className="field-error" data-testid="run-error">{error}</p>}
      {result && <RunResult result={result} />}
    </section>
  );
}

function RunResult({ result: r }: { result: BrowserRunResult }) {
  return (
    <div className="browser-run-result" aria-label="Run result" role="region">
      <p className={r.ok ? 'text-success' : 'text-danger'} data-testid="run-outcome">
        {r.ok ? 'Passed' : r.failed_action ? `Failed at step ${r.failed_step} (${r.failed_action}): ${r.error}` : `Failed: ${r.error}`}
      </p>
      <dl className="run-timings">
        <dt>Total</dt><dd>{ms(r.total_ms)}</dd>
        <dt>TTFB</dt><dd>{ms(r.ttfb_ms)}</dd>
        <dt>DOMContentLoaded</dt><dd>{ms(r.dom_content_loaded_ms)}</dd>
        <dt>Load</dt><dd>{ms(r.load_ms)}</dd>
        <dt>LCP</dt><dd>{ms(r.lcp_ms)}</dd>
        {r.region && <><dt>Region</dt><dd>{r.region}</dd></>}
      </dl>
      {r.step_ms.length > 0 && (
        <ol aria-label="Step times">
          {r.step_ms.map((t, i) => <li key={i}>Step {i + 1}: {ms(t)}{!r.ok && r.failed_step === i + 1 ? ' (failed)' : ''}</li>)}
        </ol>
      )}
      {r.console_errors.length > 0 && (
        <>
          <h4>Console errors</h4>
          <ul aria-label="Console errors">{r.console_errors.map((e, i) => <li key={i}><code>{e}</code></li>)}</ul>
        </>
      )}
      {r.failed_requests.length > 0 && (
        <>
          <h4>Failed requests</h4>
          <ul aria-label="Failed requests">{r.failed_requests.map((e, i) => <li key={i}><code>{e}</code></li>)}</ul>
        </>
      )}
      {r.screenshots.map((s, i) => (
        <figure key={i} className="run-screenshot">
          <img src={`data:${s.mime};base64,${s.data_base64}`} alt={`Screenshot: ${s.name}`} style={{ maxWidth: '100%' }} />
          <figcaption>{s.name}{s.step ? ` (step ${s.step})` : ''}</figcaption>
        </figure>
      ))}
    </div>
  );
}
