import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import type { Dashboard, Endpoint, EndpointInput, Incident, MaintenanceWindow, Region } from '@upfleet/proto/rest';
import { useAuth, useServices } from '../app-context';
import { Spinner } from '../components/Spinner';
import { ConfirmDialog } from '../components/Modal';
import { EndpointFormModal, type PlanLimits } from '../components/dashboard/EndpointFormModal';
import { ThresholdsModal } from '../components/dashboard/ThresholdsModal';
import { PlanNotices } from '../components/dashboard/PlanNotices';
import { EndpointList } from '../components/dashboard/EndpointList';
import { GlobeIcon, ActivityIcon, PlusIcon } from '../components/Icons';

const GraphsModal = lazy(() => import('../components/graphs/GraphsModal'));

const DEFAULT_PLAN: PlanLimits & { max_endpoints?: number } = {
  package_name: 'Free',
  max_regions: 1,
  ping_host: false,
  cert_expiry: false,
  response_code: true,
  response_time: false,
};

type Dialog =
  | { kind: 'add' }
  | { kind: 'edit'; endpoint: Endpoint }
  | { kind: 'thresholds'; endpoint: Endpoint }
  | { kind: 'graphs'; endpoint: Endpoint }
  | { kind: 'delete'; endpoint: Endpoint }
  | null;

export function DashboardPage() {
  const { api } = useServices();
  const user = useAuth((s) => s.user);
  const [dashboard, setDashboard] = useState<Dashboard | null>(null);
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [regions, setRegions] = useState<Region[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [openIncidents, setOpenIncidents] = useState<Map<number, Incident>>(new Map());

  // Endpoints in a maintenance window in progress (status pages, issue 21): their rows say so.
  const [inMaintenance, setInMaintenance] = useState<Set<number>>(new Set());
  const loadMaintenance = useCallback(async () => {
    try {
      const res = await api.get<MaintenanceWindow[]>('/api/users/maintenance-windows');
      if (res.success) setInMaintenance(new Set((res.data ?? []).filter((w) => w.state === 'in_progress').flatMap((w) => w.endpoint_ids)));
    } catch {
      // the list still shows without maintenance marks
    }
  }, [api]);

  // Oldest open incident per endpoint: the row says since when it has been down.
  const loadIncidents = useCallback(async () => {
    void loadMaintenance();
    try {
      const res = await api.get<Incident[]>('/api/users/incidents?status=open');
      if (!res.success) return;
      const byEndpoint = new Map<number, Incident>();
      for (const i of res.data ?? []) byEndpoint.set(i.url_id, i);
      setOpenIncidents(byEndpoint);
    } catch {
      // the list still shows without incident states
    }
  }, [api, loadMaintenance]);

  const load = useCallback(async () => {
    try {
      const [d, e, r] = await Promise.all([
        api.get<Dashboard>('/api/users/dashboard'),
        api.get<Endpoint[]>('/api/users/endpoints-with-uptime'),
        api.publicRequest<Region[]>('GET', '/api/public/regions'),
        loadIncidents(),
      ]);
      if (d.success) setDashboard(d.data);
      else console.error('load dashboard failed', d.status, d.error);
      setEndpoints(e.success ? e.data ?? [] : []);
      if (!e.success) console.error('load endpoints failed', e.status, e.error);
      if (r.success) setRegions(r.data ?? []);
    } catch (err) {
      console.error('load dashboard failed', err);
      setEndpoints((x) => x ?? []);
    }
  }, [api, loadIncidents]);

  useEffect(() => {
    void load();
  }, [load]);

  // Incidents open and close while the page is open: refresh their states every 30 s.
  useEffect(() => {
    const t = setInterval(() => void loadIncidents(), 30_000);
    return () => clearInterval(t);
  }, [loadIncidents]);

  const plan: PlanLimits = dashboard ? { ...DEFAULT_PLAN, ...dashboard, package_name: dashboard.package_name || 'Free', max_regions: dashboard.max_regions || 1 } : DEFAULT_PLAN;

  const save = async (input: EndpointInput, endpoint?: Endpoint): Promise<boolean> => {
    try {
      const res = endpoint ? await api.put(`/api/users/endpoints/${endpoint.url_id}`, input) : await api.post('/api/users/endpoints', input);
      if (res.success) {
        await load();
        return true;
      }
      console.error(endpoint ? 'update endpoint failed' : 'add endpoint failed', { status: res.status, error: res.error });
    } catch (err) {
      console.error(endpoint ? 'update endpoint failed' : 'add endpoint failed', err);
    }
    return false;
  };

  const toggle = async (ep: Endpoint) => {
    try {
      const res = await api.patch(`/api/users/endpoints/${ep.url_id}/toggle`, { monitoring_enabled: !ep.monitoring_enabled });
      if (res.success) setEndpoints((list) => list && list.map((x) => (x.url_id === ep.url_id ? { ...x, monitoring_enabled: !ep.monitoring_enabled } : x)));
      else console.error('toggle endpoint failed', res.status, res.error);
    } catch (err) {
      console.error('toggle endpoint failed', err);
    }
  };

  const remove = async (ep: Endpoint) => {
    try {
      const res = await api.del(`/api/users/endpoints/${ep.url_id}`);
      if (!res.success) console.error('delete endpoint failed', res.status, res.error);
    } catch (err) {
      console.error('delete endpoint failed', err);
    }
    setDialog(null);
    await load();
  };

  if (!endpoints) return <div className="page-loading"><Spinner /></div>;

  const total = dashboard?.total_endpoints ?? endpoints.length;
  const maxEndpoints = dashboard?.max_endpoints;

  return (
    <div className="container page">
      <header className="dash-header">
        <div>
          <h1>Welcome back, {user?.username}!</h1>
          <p className="page-sub">Here is how your endpoints are doing. You are on the <strong>{plan.package_name}</strong> plan.</p>
        </div>
      </header>

      <PlanNotices onPlanChanged={() => void load()} />

      <section className="stat-grid" aria-label="Summary">
        <div className="card stat-card">
          <span className="stat-icon"><ActivityIcon /></span>
          <div>
            <div className="stat-label">Total Endpoints</div>
            <div className="stat-value">{total}{maxEndpoints ? <span className="stat-of"> / {maxEndpoints}</span> : null}</div>
          </div>
        </div>
        <div className="card stat-card">
          <span className="stat-icon stat-icon-alt"><GlobeIcon /></span>
          <div>
            <div className="stat-label">Regions</div>
            <div className="stat-value">{dashboard?.regions_count ?? 3}</div>
          </div>
        </div>
      </section>

      <section className="card list-card" aria-labelledby="endpoints-title">
        <div className="list-header">
          <h2 id="endpoints-title">Your Endpoints</h2>
          <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'add' })}>
            <PlusIcon width={16} height={16} /> Add Endpoint
          </button>
        </div>
        {endpoints.length === 0 ? (
          <div className="empty-state">
            <span className="empty-icon"><ActivityIcon width={28} height={28} /></span>
            <h3>No endpoints yet</h3>
            <p>Add your first website or API endpoint to start monitoring it.</p>
            <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'add' })}>Add Your First Endpoint</button>
          </div>
        ) : (
          <EndpointList
            endpoints={endpoints}
            openIncidents={openIncidents}
            inMaintenance={inMaintenance}
            onEdit={(ep) => setDialog({ kind: 'edit', endpoint: ep })}
            onThresholds={(ep) => setDialog({ kind: 'thresholds', endpoint: ep })}
            onGraphs={(ep) => setDialog({ kind: 'graphs', endpoint: ep })}
            onToggle={(ep) => void toggle(ep)}
            onDelete={(ep) => setDialog({ kind: 'delete', endpoint: ep })}
          />
        )}
      </section>

      {dialog?.kind === 'add' && <EndpointFormModal endpoint={null} regions={regions} plan={plan} onSubmit={(i) => save(i)} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'edit' && <EndpointFormModal endpoint={dialog.endpoint} regions={regions} plan={plan} onSubmit={(i) => save(i, dialog.endpoint)} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'thresholds' && <ThresholdsModal endpoint={dialog.endpoint} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'graphs' && (
        <Suspense fallback={<div className="modal-backdrop"><Spinner /></div>}>
          <GraphsModal endpoint={dialog.endpoint} onClose={() => setDialog(null)} />
        </Suspense>
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog title="Delete Endpoint" message="Are you sure you want to delete this endpoint?" onConfirm={() => void remove(dialog.endpoint)} onCancel={() => setDialog(null)}>
          <p className="muted"><strong>{dialog.endpoint.name}</strong> and its alert thresholds will be removed.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
