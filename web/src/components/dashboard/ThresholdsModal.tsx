import { useEffect, useState } from 'react';
import { THRESHOLD_OPERATORS, type AlertThreshold, type AlertThresholdInput, type Endpoint, type MonitorType, type Region, type ThresholdOperator } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { Modal } from '../Modal';
import { Spinner } from '../Spinner';
import { validateThresholds } from '../../lib/validation';
import { regionKey, regionLabel } from '../../lib/format';

interface ThresholdRow {
  monitor_type_id: number;
  display_name: string;
  region_id: number | null;
  region_name: string | null;
  threshold_value: string;
  threshold_operator: ThresholdOperator;
  is_enabled: boolean;
}

const DEFAULTS: Record<string, { value: number; op: ThresholdOperator; unit: string }> = {
  response_time: { value: 1000, op: '>', unit: 'ms' },
  ping_host: { value: 500, op: '>', unit: 'ms' },
  response_code: { value: 400, op: '>=', unit: 'status' },
  cert_expiry: { value: 14, op: '<', unit: 'days' },
};

/** Server rows first, then a default (disabled) row for every enabled check and region not yet set. */
export function buildThresholdRows(endpoint: Endpoint, saved: AlertThreshold[], types: MonitorType[], regions: Region[]): ThresholdRow[] {
  const rows: ThresholdRow[] = saved.map((t) => ({
    monitor_type_id: t.monitor_type_id,
    display_name: t.display_name,
    region_id: t.region_id,
    region_name: t.region_name,
    threshold_value: String(t.threshold_value),
    threshold_operator: t.threshold_operator,
    is_enabled: t.is_enabled,
  }));
  const have = new Set(rows.map((r) => `${r.monitor_type_id}:${r.region_id}`));
  const byKey = new Map(regions.map((r) => [regionKey(r), r]));
  const primary = regions.find((r) => r.primary_region) ?? null;
  for (const t of types) {
    if (!endpoint[t.type_code]) continue;
    // Primary-only checks have one threshold, whatever region id the server stored it under.
    if (t.requires_primary_region && rows.some((r) => r.monitor_type_id === t.monitor_type_id)) continue;
    const targets = t.requires_primary_region ? [primary] : endpoint.regions.map((k) => byKey.get(k) ?? null).filter(Boolean);
    for (const r of targets.length ? targets : [primary]) {
      const key = `${t.monitor_type_id}:${r?.region_id ?? null}`;
      if (have.has(key)) continue;
      have.add(key);
      const d = DEFAULTS[t.type_code] ?? { value: 1, op: '>' as const };
      rows.push({
        monitor_type_id: t.monitor_type_id,
        display_name: t.display_name,
        region_id: r?.region_id ?? null,
        region_name: r ? regionLabel(r) : null,
        threshold_value: String(d.value),
        threshold_operator: d.op,
        is_enabled: false,
      });
    }
  }
  return rows;
}

function toThresholdInputs(rows: ThresholdRow[]): AlertThresholdInput[] {
  return rows.map((r) => ({
    monitor_type_id: r.monitor_type_id,
    threshold_value: Math.round(Number(r.threshold_value)),
    threshold_operator: r.threshold_operator,
    is_enabled: r.is_enabled,
    region_id: r.region_id,
  }));
}

export function ThresholdsModal({ endpoint, onClose }: { endpoint: Endpoint; onClose: () => void }) {
  const { api } = useServices();
  const [rows, setRows] = useState<ThresholdRow[] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    Promise.all([
      api.get<AlertThreshold[]>(`/api/users/endpoints/${endpoint.url_id}/alert-thresholds`),
      api.get<MonitorType[]>('/api/users/monitor-types'),
      api.get<Region[]>('/api/users/regions'),
    ])
      .then(([t, m, r]) => {
        if (!live) return;
        if (!t.success) console.error('load thresholds failed', t.status, t.error);
        setRows(buildThresholdRows(endpoint, t.success ? t.data ?? [] : [], m.success ? m.data ?? [] : [], r.success ? r.data ?? [] : []));
      })
      .catch((err) => {
        console.error('load thresholds failed', err);
        if (live) setRows([]);
      });
    return () => {
      live = false;
    };
  }, [api, endpoint]);

  const update = (i: number, patch: Partial<ThresholdRow>) => setRows((rs) => rs && rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  const save = async () => {
    if (!rows) return;
    const invalid = validateThresholds(rows);
    if (invalid) {
      setError(invalid);
      return;
    }
    setError('');
    setBusy(true);
    try {
      const res = await api.put(`/api/users/endpoints/${endpoint.url_id}/alert-thresholds`, { alert_thresholds: toThresholdInputs(rows) });
      if (res.success) onClose();
      else console.error('save thresholds failed', res.status, res.error);
    } catch (err) {
      console.error('save thresholds failed', err);
    }
    setBusy(false);
  };

  return (
    <Modal
      title={`Alert Thresholds for ${endpoint.name}`}
      onClose={onClose}
      size="lg"
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={onClose}>Cancel</button>
          <button type="button" className="btn btn-primary" onClick={save} disabled={busy || !rows}>Save Thresholds</button>
        </>
      }
    >
      {!rows && <Spinner />}
      {rows && rows.length === 0 && <p className="empty-text">Enable monitoring features on this endpoint to set alert thresholds.</p>}
      {rows && rows.length > 0 && (
        <div className="threshold-list">
          {rows.map((r, i) => {
            const id = `th-${i}`;
            return (
              <div key={`${r.monitor_type_id}:${r.region_id}`} className={`threshold-row${r.is_enabled ? '' : ' disabled'}`}>
                <div className="threshold-title">
                  <label className="switch">
                    <input type="checkbox" checked={r.is_enabled} onChange={() => update(i, { is_enabled: !r.is_enabled })} aria-label={`Enable ${r.display_name}${r.region_name ? ` (${r.region_name})` : ''} threshold`} />
                    <span className="switch-track" aria-hidden="true" />
                  </label>
                  <div>
                    <div className="strong">{r.display_name}</div>
                    {r.region_name && <div className="muted small">{r.region_name}</div>}
                  </div>
                </div>
                <div className="threshold-controls">
                  <label className="sr-only" htmlFor={`${id}-op`}>Operator for {r.display_name}</label>
                  <select id={`${id}-op`} value={r.threshold_operator} onChange={(e) => update(i, { threshold_operator: e.target.value as ThresholdOperator })}>
                    {THRESHOLD_OPERATORS.map((op) => (<option key={op} value={op}>{op}</option>))}
                  </select>
                  <label className="sr-only" htmlFor={`${id}-value`}>Threshold value for {r.display_name}</label>
                  <input id={`${id}-value`} type="number" min={1} step={1} value={r.threshold_value} onChange={(e) => update(i, { threshold_value: e.target.value })} />
                </div>
              </div>
            );
          })}
        </div>
      )}
      {error && <div className="alert alert-error" role="alert">{error}</div>}
    </Modal>
  );
}
