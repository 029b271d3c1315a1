// The endpoint form's check part: the kind (HTTP, TCP Port, DNS), an HTTP check's
// request editor (method, headers with secret values, body, redirects, timeout), a tcp/dns target
// and the assertion rows. The values are the REST body's (`EndpointCheck`); the form validates the
// whole body with the server's schema (EndpointCreateBody).
import {
  ASSERTION_COMPARISONS, ASSERTION_SOURCES, CREATABLE_KINDS, DNS_COMPARISONS, DNS_RECORD_TYPES, HTTP_METHODS,
  type Assertion, type EndpointKind,
} from '@upfleet/proto/assertions';
import type { EndpointCheck, HttpRequestOptions } from '@upfleet/proto/rest';
import { endpointKindSpec } from '@upfleet/proto/check-kinds';
import { Field } from '../Field';
import { LockIcon } from '../Icons';
import { HeartbeatFields } from './HeartbeatFields';
import { BrowserStepsEditor } from './BrowserStepsEditor';

const DEFAULT_REQUEST: HttpRequestOptions = { method: 'GET', headers: [], body: '', follow_redirects: true };

export function CheckFields({ value, onChange, allowedKinds, onKindRefused, urlId, keptSecrets }: {
  value: EndpointCheck;
  /** browser: selectors of the saved endpoint's secret fills (kept when sent without a value) */
  keptSecrets?: Set<string>;
  /** The saved endpoint's id (a heartbeat shows its ping URL). */
  urlId?: number;
  onChange: (next: EndpointCheck) => void;
  /** absent: every kind */
  allowedKinds?: EndpointKind[];
  onKindRefused: (kind: EndpointKind) => void;
}) {
  const kind = value.kind ?? 'http';
  const target = endpointKindSpec(kind).target;
  const request = value.request ?? DEFAULT_REQUEST;
  const setRequest = (r: Partial<HttpRequestOptions>) => onChange({ ...value, request: { ...request, ...r } });
  const assertions = value.assertions ?? [];
  const setAssertions = (list: Assertion[]) => onChange({ ...value, assertions: list });
  const onAnswer = endpointKindSpec(kind).assertions === 'answer';
  const sources = onAnswer ? (['answer'] as const) : ASSERTION_SOURCES.filter((s) => s !== 'answer');
  const comparisons = onAnswer ? DNS_COMPARISONS : ASSERTION_COMPARISONS;

  const pickKind = (k: EndpointKind) => {
    if (allowedKinds && !allowedKinds.includes(k)) return onKindRefused(k);
    onChange({ ...endpointKindSpec(k).blank, kind: k });
  };

  return (
    <>
      <fieldset className="fieldset">
        <legend>Check type</legend>
        <div className="option-grid" role="radiogroup" aria-label="Check type">
          {CREATABLE_KINDS.map((k) => {
            const locked = allowedKinds !== undefined && !allowedKinds.includes(k);
            return (
              <label key={k} className={`option compact${kind === k ? ' selected' : ''}${locked ? ' locked' : ''}`}>
                <input type="radio" name="check-kind" checked={kind === k} onChange={() => pickKind(k)} />
                <span className="option-title">{endpointKindSpec(k).label} {locked && <span className="lock-tag"><LockIcon width={12} height={12} /> Upgrade</span>}</span>
              </label>
            );
          })}
        </div>
      </fieldset>

      {kind === 'heartbeat' && <HeartbeatFields value={value} onChange={onChange} urlId={urlId} />}

      {kind === 'browser' && <BrowserStepsEditor value={value} onChange={onChange} keptSecrets={keptSecrets ?? new Set()} />}

      {target.field === 'target' && (
        <div className="form-grid">
          <Field id="ep-target" label={target.label}>
            <input id="ep-target" value={value.target ?? ''} onChange={(e) => onChange({ ...value, target: e.target.value })} placeholder={target.placeholder} />
          </Field>
          {kind === 'dns' && (
            <>
              <Field id="ep-record-type" label="Record type">
                <select id="ep-record-type" value={value.record_type ?? 'A'} onChange={(e) => onChange({ ...value, record_type: e.target.value as EndpointCheck['record_type'] })}>
                  {DNS_RECORD_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
                </select>
              </Field>
              <Field id="ep-resolver" label={<>Resolver <span className="optional">(optional)</span></>}>
                <input id="ep-resolver" value={value.resolver ?? ''} onChange={(e) => onChange({ ...value, resolver: e.target.value || undefined })} placeholder="1.1.1.1 (default: the agent's)" />
              </Field>
            </>
          )}
        </div>
      )}

      {kind === 'http' && (
        <details className="fieldset" open={value.request !== undefined}>
          <summary>Request options</summary>
          <div className="form-grid">
            <Field id="ep-method" label="Method">
              <select id="ep-method" value={request.method} onChange={(e) => setRequest({ method: e.target.value as HttpRequestOptions['method'] })}>
                {HTTP_METHODS.map((m) => <option key={m} value={m}>{m}</option>)}
              </select>
            </Field>
            <Field id="ep-timeout" label={<>Timeout (seconds) <span className="optional">(optional)</span></>}>
              <input id="ep-timeout" type="number" min={1} max={60} value={request.timeout_seconds ?? ''}
                onChange={(e) => setRequest({ timeout_seconds: e.target.value === '' ? undefined : Number(e.target.value) })} />
            </Field>
          </div>
          <label className="option compact">
            <input type="checkbox" checked={request.follow_redirects} onChange={(e) => setRequest({ follow_redirects: e.target.checked })} />
            <span className="option-title">Follow redirects</span>
          </label>
          <p className="option-hint">Headers (a secret value is stored encrypted and never shown again; leave it empty to keep it)</p>
          {request.headers.map((h, i) => (
            <div key={i} className="row-inline" data-testid="header-row">
              <input aria-label={`Header ${i + 1} name`} value={h.name} placeholder="X-Api-Key"
                onChange={(e) => setRequest({ headers: request.headers.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)) })} />
              <input aria-label={`Header ${i + 1} value`} value={h.value ?? ''} type={h.secret ? 'password' : 'text'} placeholder={h.secret && h.value === undefined ? '(kept)' : ''}
                onChange={(e) => setRequest({ headers: request.headers.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)) })} />
              <label><input type="checkbox" checked={Boolean(h.secret)} onChange={(e) => setRequest({ headers: request.headers.map((x, j) => (j === i ? { ...x, secret: e.target.checked } : x)) })} /> Secret</label>
              <button type="button" className="btn btn-secondary" onClick={() => setRequest({ headers: request.headers.filter((_, j) => j !== i) })}>Remove header</button>
            </div>
          ))}
          <button type="button" className="btn btn-secondary" onClick={() => setRequest({ headers: [...request.headers, { name: '', value: '' }] })}>Add header</button>
          <Field id="ep-body" label={<>Request body <span className="optional">(optional, up to 64 kB)</span></>}>
            <textarea id="ep-body" rows={3} value={request.body} onChange={(e) => setRequest({ body: e.target.value })} />
          </Field>
        </details>
      )}

      {typeof endpointKindSpec(kind).assertions === 'string' && (
        <fieldset className="fieldset">
          <legend>Assertions</legend>
          <p className="option-hint">{onAnswer ? 'Checks on the answer (the records, one per line).' : 'Without assertions a check is up when the answer is 2xx or 3xx.'}</p>
          {assertions.map((a, i) => {
            const set = (p: Partial<Assertion>) => setAssertions(assertions.map((x, j) => (j === i ? { ...x, ...p } : x)));
            return (
              <div key={i} className="row-inline" data-testid="assertion-row">
                <select aria-label={`Assertion ${i + 1} source`} value={a.source} onChange={(e) => set({ source: e.target.value as Assertion['source'] })}>
                  {sources.map((s) => <option key={s} value={s}>{s}</option>)}
                </select>
                {(a.source === 'json_body' || a.source === 'header') && (
                  <input aria-label={`Assertion ${i + 1} property`} value={a.property} placeholder={a.source === 'json_body' ? '$.status' : 'content-type'} onChange={(e) => set({ property: e.target.value })} />
                )}
                <select aria-label={`Assertion ${i + 1} comparison`} value={a.comparison} onChange={(e) => set({ comparison: e.target.value as Assertion['comparison'] })}>
                  {comparisons.map((c) => <option key={c} value={c}>{c}</option>)}
                </select>
                <input aria-label={`Assertion ${i + 1} target`} value={a.target} onChange={(e) => set({ target: e.target.value })} />
                <button type="button" className="btn btn-secondary" onClick={() => setAssertions(assertions.filter((_, j) => j !== i))}>Remove assertion</button>
              </div>
            );
          })}
          <button type="button" className="btn btn-secondary"
            onClick={() => setAssertions([...assertions, onAnswer ? { source: 'answer', property: '', comparison: 'contains', target: '' } : { source: 'status_code', property: '', comparison: 'equals', target: '200' }])}>
            Add assertion
          </button>
        </fieldset>
      )}
    </>
  );
}
