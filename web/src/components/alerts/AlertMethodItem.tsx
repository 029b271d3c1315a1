// One alert method in the list: platform, target summary, enabled switch, edit and delete, plus
// "Send test" with its outcome and the method's deliveries (loaded when opened, reloaded after a
// test). The test outcome and the open deliveries are this item's own state.
import { useState } from 'react';
import type { AlertDelivery, AlertMethod } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { EditIcon, TrashIcon } from '../Icons';
import { DeliveriesList } from './DeliveriesList';
import { PLATFORM_LABELS, summary } from './platforms';

export function AlertMethodItem({ method: m, onToggle, onEdit, onDelete, manage = true }: {
  method: AlertMethod;
  onToggle: () => void;
  onEdit: () => void;
  onDelete: () => void;
  /** false for a member who may not change alert methods (below admin): no switch, edit, delete or test send. */
  manage?: boolean;
}) {
  const { api } = useServices();
  const [test, setTest] = useState<{ busy: boolean; ok?: boolean; text?: string }>();
  // undefined: closed; null: loading.
  const [deliveries, setDeliveries] = useState<AlertDelivery[] | null>();
  const id = m.alert_method_id;
  const label = PLATFORM_LABELS[m.platform];

  const loadDeliveries = async () => {
    setDeliveries((d) => d ?? null);
    try {
      const res = await api.get<AlertDelivery[]>(`/api/users/alert-methods/${id}/deliveries`);
      setDeliveries(res.success ? res.data ?? [] : []);
    } catch (err) {
      console.error('load deliveries failed', err);
      setDeliveries([]);
    }
  };

  const sendTest = async () => {
    setTest({ busy: true });
    let outcome: { busy: boolean; ok: boolean; text: string };
    try {
      const res = await api.post<{ delivered: boolean }>(`/api/users/alert-methods/${id}/test`);
      outcome = res.success ? { busy: false, ok: true, text: 'Test message delivered' } : { busy: false, ok: false, text: res.error || 'The test message could not be sent' };
    } catch {
      outcome = { busy: false, ok: false, text: 'Network error' };
    }
    setTest(outcome);
    if (deliveries !== undefined) void loadDeliveries();
  };

  const toggleDeliveries = () => {
    if (deliveries !== undefined) setDeliveries(undefined);
    else void loadDeliveries();
  };

  return (
    <li className="method-item">
      <div className="method-row" data-testid="alert-method-row">
        <span className={`platform-badge platform-${m.platform}`} aria-hidden="true">{label.slice(0, 2)}</span>
        <div className="method-text">
          <div className="strong">{label}</div>
          <div className="muted small">{summary(m)}</div>
        </div>
        <span className={`badge ${m.is_enabled ? 'badge-green' : 'badge-grey'}`}>{m.is_enabled ? 'Enabled' : 'Disabled'}</span>
        <div className="row-actions">
          {manage && (
            <>
              <label className="switch" title={m.is_enabled ? 'Disable' : 'Enable'}>
                <input type="checkbox" checked={m.is_enabled} onChange={onToggle} aria-label={`${m.is_enabled ? 'Disable' : 'Enable'} ${label} alerts`} />
                <span className="switch-track" aria-hidden="true" />
              </label>
              <button type="button" className="icon-btn" aria-label={`Edit ${label} alert method`} onClick={onEdit}><EditIcon /></button>
              <button type="button" className="icon-btn danger" aria-label={`Delete ${label} alert method`} onClick={onDelete}><TrashIcon /></button>
            </>
          )}
        </div>
      </div>
      <div className="method-extra">
        <div className="row-actions">
          {manage && (
            <button type="button" className="btn btn-secondary btn-sm" disabled={test?.busy} onClick={() => void sendTest()}>
              {test?.busy ? 'Sending...' : 'Send test'}
            </button>
          )}
          <button type="button" className="btn btn-secondary btn-sm" aria-expanded={deliveries !== undefined} onClick={toggleDeliveries}>
            Deliveries
          </button>
          {test?.text && <span className={`test-outcome ${test.ok ? 'ok' : 'failed'}`} role="status">{test.text}</span>}
        </div>
        {deliveries !== undefined && <DeliveriesList deliveries={deliveries} />}
      </div>
    </li>
  );
}
