// A browser check's steps in the endpoint form: add with an action picker, each action's fields,
// reorder, delete, a secret toggle on fill values (write-only: a saved one shows as kept, never its
// value), and the timeout. Each step is checked by the server's own rule (stepProblem), so a
// message names the step as the API's 400 would.
import { useState } from 'react';
import { BROWSER_ACTIONS, LIMITS_BROWSER, WAIT_STATES, stepFields, stepProblem, type BrowserAction, type BrowserStep } from '@upfleet/proto/browser-steps';
import type { EndpointCheck } from '@upfleet/proto/rest';
import { Field } from '../Field';

const FIELD_LABELS: Partial<Record<keyof BrowserStep, string>> = {
  url: 'URL', selector: 'selector', value: 'value', key: 'key', text: 'text', state: 'state', contains: 'contains', equals: 'equals', name: 'name',
};
/** Each field's visible hint (the accessible name is the aria-label `Step N field`). */
const PLACEHOLDERS: Partial<Record<keyof BrowserStep, string>> = {
  url: 'URL: https://example.com/login', selector: 'selector: #email, text=Sign in, role=button[name="Save"]', value: 'value typed', key: 'key: Enter, Tab, Control+A',
  text: 'or text on the page', contains: 'contains: Dashboard', equals: 'or equals (the exact text)', name: 'name: after login',
};

/** The message of a step's problem as the API gives it ("Step 2 (click): selector is required"), or null. */
export function stepError(step: BrowserStep, index: number, keptSecret: (selector: string) => boolean): string | null {
  const p = stepProblem(step, index, keptSecret);
  return p ? p[0].toUpperCase() + p.slice(1) : null;
}

export function BrowserStepsEditor({ value, onChange, keptSecrets }: {
  value: EndpointCheck;
  onChange: (next: EndpointCheck) => void;
  /** selectors of the saved endpoint's secret fills: sent without a value, the stored one is kept */
  keptSecrets: Set<string>;
}) {
  const steps: BrowserStep[] = value.steps ?? [];
  const setSteps = (list: BrowserStep[]) => onChange({ ...value, steps: list });
  const setStep = (i: number, s: BrowserStep) => setSteps(steps.map((x, j) => (j === i ? s : x)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...steps];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    setSteps(next);
  };
  const kept = (selector: string) => keptSecrets.has(selector);
  const [picked, setPicked] = useState<BrowserAction>('click');

  return (
    <fieldset className="fieldset browser-steps">
      <legend>Browser steps</legend>
      <p className="option-hint">After loading the URL, the steps run in order in a real Chromium; the first that fails is the check's cause.</p>
      <Field id="ep-browser-timeout" label={`Timeout (seconds, at most ${LIMITS_BROWSER.timeoutSecondsMax})`}>
        <input id="ep-browser-timeout" type="number" min={1} max={LIMITS_BROWSER.timeoutSecondsMax} value={value.timeout_seconds ?? ''}
          onChange={(e) => onChange({ ...value, timeout_seconds: e.target.value === '' ? undefined : Number(e.target.value) })} />
      </Field>
      <ol className="step-list" aria-label="Steps">
        {steps.map((s, i) => {
          const n = i + 1;
          const error = stepError(s, i, kept);
          const set = (k: keyof BrowserStep, v: string) => {
            const next = { ...s } as Record<string, unknown>;
            if (v === '') delete next[k];
            else next[k] = v;
            setStep(i, next as unknown as BrowserStep);
          };
          return (
            <li key={i} className="step-row" data-testid="step-row">
              <div className="row-inline">
                <strong>Step {n}: {s.action}</strong>
                <button type="button" className="btn btn-secondary btn-sm" aria-label={`Move step ${n} up`} disabled={i === 0} onClick={() => move(i, -1)}>↑</button>
                <button type="button" className="btn btn-secondary btn-sm" aria-label={`Move step ${n} down`} disabled={i === steps.length - 1} onClick={() => move(i, 1)}>↓</button>
                <button type="button" className="btn btn-secondary btn-sm" aria-label={`Delete step ${n}`} onClick={() => setSteps(steps.filter((_, j) => j !== i))}>Delete</button>
              </div>
              <div className="row-inline">
                {stepFields(s.action).filter((k) => k !== 'secret').map((k) => {
                  const label = `Step ${n} ${FIELD_LABELS[k] ?? k}`;
                  if (k === 'state') {
                    return (
                      <select key={k} aria-label={label} value={s.state ?? 'visible'} onChange={(e) => set('state', e.target.value)}>
                        {WAIT_STATES.map((w) => <option key={w} value={w}>{w}</option>)}
                      </select>
                    );
                  }
                  if (k === 'value') {
                    const keptValue = s.secret === true && s.value === undefined && kept(s.selector ?? '');
                    return (
                      <input key={k} aria-label={label} type={s.secret ? 'password' : 'text'} autoComplete="off" value={s.value ?? ''}
                        placeholder={keptValue ? '(kept)' : PLACEHOLDERS.value}
                        onChange={(e) => {
                          // a secret left empty keeps the stored value; a plain one may be empty text
                          const next: BrowserStep = { ...s, value: e.target.value };
                          if (s.secret && e.target.value === '') delete next.value;
                          setStep(i, next);
                        }} />
                    );
                  }
                  return <input key={k} aria-label={label} value={(s[k]) ?? ''} placeholder={PLACEHOLDERS[k]} onChange={(e) => set(k, e.target.value)} />;
                })}
                {s.action === 'fill' && (
                  <label>
                    <input type="checkbox" aria-label={`Step ${n} secret`} checked={s.secret === true}
                      onChange={(e) => {
                        const next: BrowserStep = { ...s, secret: e.target.checked };
                        if (!e.target.checked) delete next.secret;
                        setStep(i, next);
                      }} /> Secret
                  </label>
                )}
              </div>
              {error && <p className="field-error" data-testid="step-error">{error}</p>}
            </li>
          );
        })}
      </ol>
      {steps.length < LIMITS_BROWSER.steps && (
        <div className="row-inline">
          <select aria-label="New step action" value={picked} onChange={(e) => setPicked(e.target.value as BrowserAction)}>
            {BROWSER_ACTIONS.map((a) => <option key={a} value={a}>{a}</option>)}
          </select>
          <button type="button" className="btn btn-secondary" onClick={() => setSteps([...steps, picked === 'wait_for' ? { action: picked, state: 'visible' } : { action: picked }])}>
            Add step
          </button>
        </div>
      )}
    </fieldset>
  );
}
