import { useState, type FormEvent } from 'react';
import { featureAllowed, formatInterval, planViolations, FREE_PLAN_DEFAULTS } from '@upfleet/proto/plan';
import { FEATURES, FEATURE_LABELS, type Dashboard, type Endpoint, type EndpointCheck, type EndpointInput, type EscalationPolicy, type Feature, type Region, type SavedEndpoint } from '@upfleet/proto/rest';
import { endpointKindSpec } from '@upfleet/proto/check-kinds';
import { EndpointCreateBody, SLO_WINDOW_DAYS, firstError } from '@upfleet/proto/schemas';
import { CheckFields } from './EndpointCheckFields';
import { PingInstructions } from './HeartbeatFields';
import { BrowserRunPanel } from './BrowserRunPanel';
import { stepError } from './BrowserStepsEditor';
import { Modal } from '../Modal';
import { regionKey, regionLabel } from '../../lib/format';
import { validateEndpointBasics } from '../../lib/validation';
import { LockIcon } from '../Icons';
import { Field } from '../Field';

export type PlanLimits = Pick<Dashboard, 'package_name' | 'max_regions' | 'ping_host' | 'cert_expiry' | 'response_code' | 'response_time'> & Partial<Pick<Dashboard, 'multi_region' | 'monitor_kinds' | 'check_frequency_seconds'>>;

/** Intervals offered besides the plan's own; only those at or above the plan's are shown. */
const INTERVAL_CHOICES = [10, 30, 60, 120, 300, 600, 900, 1800, 3600];

/** The plan's interval, then the longer choices (and an endpoint's current one, if unusual). */
function intervalChoices(planSeconds: number, current: number | null): number[] {
  const set = new Set(INTERVAL_CHOICES.filter((s) => s > planSeconds));
  if (current !== null && current > planSeconds) set.add(current);
  return [...set].sort((a, b) => a - b);
}

/** An endpoint's check as the form edits it; an http GET has only its kind. */
function initialCheck(endpoint: Endpoint | null): EndpointCheck {
  if (!endpoint) return { kind: 'http' };
  const { kind, target, record_type, resolver, request, assertions, period_seconds, cron, timezone, grace_seconds, steps, timeout_seconds } = endpoint;
  return Object.fromEntries(Object.entries({ kind: kind ?? 'http', target, record_type, resolver, request, assertions, period_seconds, cron, timezone, grace_seconds, steps, timeout_seconds })
    .filter(([, v]) => v !== undefined));
}

const PRIMARY_FALLBACK = 'EU-Germany';

function primaryRegionKey(regions: Region[]): string {
  const p = regions.find((r) => r.primary_region);
  return p ? regionKey(p) : PRIMARY_FALLBACK;
}

/** Edit form pre-fill keeps only regions whose region-city is in the endpoint's regions. */
export function initialForm(endpoint: Endpoint | null, regions: Region[], plan: PlanLimits): EndpointInput {
  if (!endpoint) {
    return {
      name: '',
      url: '',
      description: '',
      regions: [primaryRegionKey(regions)],
      ping_host: false,
      cert_expiry: false,
      response_code: plan.response_code !== false,
      response_time: false,
    };
  }
  const known = new Set(regions.map(regionKey));
  return {
    name: endpoint.name,
    url: endpoint.url,
    description: endpoint.description ?? '',
    regions: endpoint.regions.filter((r) => known.has(r)),
    ping_host: endpoint.ping_host,
    cert_expiry: endpoint.cert_expiry,
    response_code: endpoint.response_code,
    response_time: endpoint.response_time,
  };
}

const FEATURE_HINTS: Record<Feature, string> = {
  response_code: 'HTTP status of each check. Runs from the primary region.',
  response_time: 'How long the page takes to answer, from every selected region.',
  ping_host: 'Reachability of the host, from every selected region.',
  cert_expiry: 'Days until the TLS certificate expires. Runs from the primary region.',
};

/** Who is paged for the endpoint's incidents, and the endpoint whose outage silences them. */
function AlertRouting({ policies, endpoints, policy, parent, self, onPolicy, onParent }: {
  policies: EscalationPolicy[]; endpoints: Array<Pick<Endpoint, 'url_id' | 'name'>>; policy: number | null; parent: number | null; self: number | null;
  onPolicy: (id: number | null) => void; onParent: (id: number | null) => void;
}) {
  const others = endpoints.filter((e) => e.url_id !== self);
  return (
    <div className="form-grid">
      <Field id="ep-policy" label="Escalation policy">
        <select id="ep-policy" value={policy ?? ''} onChange={(e) => onPolicy(e.target.value === '' ? null : Number(e.target.value))}>
          <option value="">None: every enabled alert method at once</option>
          {policies.map((p) => <option key={p.escalation_policy_id} value={p.escalation_policy_id}>{p.name}</option>)}
        </select>
      </Field>
      <Field id="ep-depends" label="Depends on">
        <select id="ep-depends" value={parent ?? ''} onChange={(e) => onParent(e.target.value === '' ? null : Number(e.target.value))}>
          <option value="">Nothing</option>
          {parent !== null && !others.some((e) => e.url_id === parent) && <option value={parent}>Endpoint {parent}</option>}
          {others.map((e) => <option key={e.url_id} value={e.url_id}>{e.name}</option>)}
        </select>
      </Field>
    </div>
  );
}

export function EndpointFormModal({
  endpoint,
  regions,
  plan,
  policies,
  endpoints = [],
  onSubmit,
  onClose,
}: {
  endpoint: Endpoint | null;
  regions: Region[];
  plan: PlanLimits;
  /** The workspace's escalation policies; undefined (not loaded): the form leaves policy and dependency as they are. */
  policies?: EscalationPolicy[];
  /** Endpoints this one may depend on. */
  endpoints?: Array<Pick<Endpoint, 'url_id' | 'name'>>;
  /** The saved endpoint (or true) on success, false otherwise. */
  onSubmit: (input: EndpointInput) => Promise<boolean | SavedEndpoint>;
  onClose: () => void;
}) {
  // A new heartbeat is of no use until its job pings: its URL and lines are shown at once.
  const [created, setCreated] = useState<SavedEndpoint | null>(null);
  const [form, setForm] = useState<EndpointInput>(() => initialForm(endpoint, regions, plan));
  const [check, setCheck] = useState<EndpointCheck>(() => initialCheck(endpoint));
  // null: the plan's interval (the endpoint follows the plan when it changes)
  const [interval, setOwnInterval] = useState<number | null>(endpoint?.check_frequency_seconds ?? null);
  const planInterval = plan.check_frequency_seconds ?? 300;
  // The SLO: an empty target is none; the window is sent with it (30 days unless chosen).
  const [sloTarget, setSloTarget] = useState(endpoint?.slo_target !== undefined ? String(endpoint.slo_target) : '');
  const [sloWindow, setSloWindow] = useState(endpoint?.slo_window_days ?? 30);
  const kind = check.kind ?? 'http';
  const [policy, setPolicy] = useState<number | null>(endpoint?.escalation_policy_id ?? null);
  const [parent, setParent] = useState<number | null>(endpoint?.depends_on ?? null);
  // http and browser checks load a URL; the other kinds name a target or none
  const urlKind = endpointKindSpec(kind).target.field === 'url';
  // A saved browser check's secret fills come without their value (write-only): sent so, they are kept.
  const [keptSecrets] = useState(() => new Set((endpoint?.steps ?? []).filter((s) => s.action === 'fill' && s.secret && s.value === undefined).map((s) => s.selector ?? '')));
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const maxRegions = Math.max(1, plan.max_regions || 1);
  const singleRegion = maxRegions <= 1;
  const primary = regions.find((r) => r.primary_region);

  // The plan's rules are @upfleet/proto/plan's, the same the server and the CLI apply.
  const limits = { ...plan, max_regions: maxRegions, package_name: plan.package_name || FREE_PLAN_DEFAULTS.package_name };
  const primaryKey = primaryRegionKey(regions);
  const ctx = { primaryRegion: { key: primaryKey, label: primary ? regionLabel(primary) : 'EU - Germany' } };

  const toggleFeature = (f: Feature) => {
    const refused = planViolations(limits, { features: { [f]: true } })[0];
    if (refused) {
      setNotice(refused.message);
      return;
    }
    setNotice('');
    setForm((s) => ({ ...s, [f]: !s[f] }));
  };

  const toggleRegion = (key: string) => {
    const has = form.regions.includes(key);
    const refused = has ? undefined : planViolations(limits, { regions: [...form.regions, key] }, ctx)[0];
    if (refused) {
      setNotice(refused.message);
      return;
    }
    setNotice('');
    setForm((s) => ({ ...s, regions: has ? s.regions.filter((r) => r !== key) : [...s.regions, key] }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // the whole body through the server's schema (kind rules, request, assertions); an http one as before
    const body = { ...form, ...check, ...(urlKind ? {} : { url: undefined }) };
    const stepInvalid = kind === 'browser' ? (check.steps ?? []).map((s, i) => stepError(s, i, (sel) => keptSecrets.has(sel))).find((m) => m !== null) : undefined;
    const invalid = kind === 'http' && !check.request && !check.assertions?.length ? validateEndpointBasics(form.name, form.url) : firstError(EndpointCreateBody, body) ?? stepInvalid;
    if (invalid) {
      setError(invalid);
      return;
    }
    const chosen = singleRegion ? [primaryRegionKey(regions)] : form.regions;
    if (chosen.length === 0) {
      setError('Please select at least one region');
      return;
    }
    const target = sloTarget.trim() === '' ? null : Number(sloTarget);
    if (target !== null && !(target > 0 && target < 100)) {
      setError('slo_target must be a percentage above 0 and below 100, such as 99.9');
      return;
    }
    setError('');
    setBusy(true);
    const own = kind !== 'heartbeat' && interval !== null ? { check_frequency_seconds: interval } : {};
    const routing = policies ? { escalation_policy_id: policy, depends_on: parent } : {};
    const slo = { slo_target: target, slo_window_days: sloWindow };
    const ok = await onSubmit({ ...form, ...check, ...own, ...routing, ...slo, name: form.name.trim(), url: urlKind ? form.url.trim() : undefined, description: form.description?.trim() ?? '', regions: chosen } as EndpointInput);
    setBusy(false);
    if (!ok) return;
    if (!endpoint && typeof ok === 'object' && ok.kind === 'heartbeat') setCreated(ok);
    else onClose();
  };

  if (created) {
    return (
      <Modal title="Heartbeat created" onClose={onClose} size="lg">
        <p><strong>{created.name}</strong> waits for its first ping. Call this URL when your job finishes:</p>
        {created.ping_url
          ? <PingInstructions url={created.ping_url} schedule={created} />
          : <p className="muted">An editor of this workspace sees its ping URL in the heartbeat's edit form.</p>}
        <div className="modal-actions">
          <button type="button" className="btn btn-primary" onClick={onClose}>Done</button>
        </div>
      </Modal>
    );
  }

  return (
    <Modal title={endpoint ? 'Edit Endpoint' : 'Add Endpoint'} onClose={onClose} size="lg">
      <form onSubmit={submit} noValidate className="endpoint-form">
        <div className="form-grid">
          <Field id="ep-name" label="Name">
            <input id="ep-name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required placeholder="My website" />
          </Field>
          {urlKind && (
            <Field id="ep-url" label="URL">
              <input id="ep-url" type="url" value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} required placeholder="https://example.com" />
            </Field>
          )}
        </div>
        <CheckFields value={check} onChange={setCheck} allowedKinds={plan.monitor_kinds} urlId={endpoint?.url_id} keptSecrets={keptSecrets}
          onKindRefused={(k) => setNotice(planViolations(limits, { kind: k })[0]?.message ?? `${endpointKindSpec(k).label} checks are not in your plan`)} />
        {kind === 'browser' && <BrowserRunPanel url={form.url} check={check} urlId={endpoint?.url_id} keptSecrets={keptSecrets} />}
        {kind !== 'heartbeat' && (
          <Field id="ep-interval" label="Check interval">
            <select id="ep-interval" value={interval ?? ''} onChange={(e) => setOwnInterval(e.target.value === '' ? null : Number(e.target.value))}>
              <option value="">Every {formatInterval(planInterval)} (your {plan.package_name || 'Free'} plan's)</option>
              {intervalChoices(planInterval, interval).map((s) => <option key={s} value={s}>Every {formatInterval(s)}</option>)}
            </select>
          </Field>
        )}
        {policies && <AlertRouting policies={policies} endpoints={endpoints} policy={policy} parent={parent} self={endpoint?.url_id ?? null} onPolicy={setPolicy} onParent={setParent} />}
        <div className="form-grid">
          <Field id="ep-slo-target" label={<>SLO target (%) <span className="optional">(optional)</span></>}>
            <input id="ep-slo-target" inputMode="decimal" value={sloTarget} onChange={(e) => setSloTarget(e.target.value)} placeholder="99.9" />
          </Field>
          <Field id="ep-slo-window" label="SLO window">
            <select id="ep-slo-window" value={sloWindow} onChange={(e) => setSloWindow(Number(e.target.value))}>
              {SLO_WINDOW_DAYS.map((d) => <option key={d} value={d}>{d} days</option>)}
            </select>
          </Field>
        </div>
        <Field id="ep-description" label={<>Description <span className="optional">(optional)</span></>}>
          <textarea id="ep-description" rows={2} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
        </Field>

        {kind === 'http' && <fieldset className="fieldset">
          <legend>Monitoring Features</legend>
          <div className="option-grid">
            {FEATURES.map((f) => {
              const allowed = featureAllowed(limits, f);
              return (
                <label key={f} className={`option${form[f] ? ' selected' : ''}${allowed ? '' : ' locked'}`}>
                  <input type="checkbox" checked={form[f]} onChange={() => toggleFeature(f)} aria-describedby={`hint-${f}`} />
                  <span className="option-text">
                    <span className="option-title">
                      {FEATURE_LABELS[f]} {!allowed && <span className="lock-tag"><LockIcon width={12} height={12} /> Upgrade</span>}
                    </span>
                    <span id={`hint-${f}`} className="option-hint">{FEATURE_HINTS[f]}</span>
                  </span>
                </label>
              );
            })}
          </div>
        </fieldset>}

        <fieldset className="fieldset">
          <legend>Regions</legend>
          {singleRegion ? (
            <div className="single-region">
              <span className="chip chip-primary">{primary ? regionLabel(primary) : 'EU - Germany'}</span>
              <span className="option-hint">Your {plan.package_name || FREE_PLAN_DEFAULTS.package_name} plan checks from the primary region.</span>
            </div>
          ) : (
            <>
              <p className="option-hint">Select up to {maxRegions} region(s).</p>
              <div className="option-grid">
                {regions.map((r) => {
                  const key = regionKey(r);
                  return (
                    <label key={key} className={`option compact${form.regions.includes(key) ? ' selected' : ''}`}>
                      <input type="checkbox" checked={form.regions.includes(key)} onChange={() => toggleRegion(key)} />
                      <span className="option-title">{regionLabel(r)}{r.primary_region && <span className="muted"> (primary)</span>}</span>
                    </label>
                  );
                })}
              </div>
            </>
          )}
          <p className="option-hint">Certificate Expiry and Response Code checks run only from the primary region (EU - Germany); Ping Host and Response Time run from every selected region.</p>
        </fieldset>

        {notice && <div className="alert alert-warning" role="alert">{notice}</div>}
        {error && <div className="alert alert-error" role="alert">{error}</div>}
        <div className="modal-actions">
          <button type="button" className="btn btn-secondary" onClick={onClose}>Cancel</button>
          <button type="submit" className="btn btn-primary" disabled={busy}>{endpoint ? 'Save Changes' : 'Add Endpoint'}</button>
        </div>
      </form>
    </Modal>
  );
}
