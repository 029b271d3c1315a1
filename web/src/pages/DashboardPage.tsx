import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { Dashboard, Endpoint, EndpointInput, EscalationPolicy, Incident, MaintenanceWindow, Region, SavedEndpoint } from '@upfleet/proto/rest';
import { useAuth, useServices } from '../app-context';
import { StatusSummary } from '../components/dashboard/StatusSummary';
import { useEndpointList } from '../components/dashboard/use-endpoint-list';
import { connectEvents, type StreamState } from '../lib/event-stream';
import { DEFAULT_SORT, queryFromParams, type ListQuery, type ResultEvent } from '../lib/live-list';
import { Spinner } from '../components/Spinner';
import { ConfirmDialog } from '../components/Modal';
import { EndpointFormModal, type PlanLimits } from '../components/dashboard/EndpointFormModal';
import { ThresholdsModal } from '../components/dashboard/ThresholdsModal';
import { PlanNotices } from '../components/dashboard/PlanNotices';
import { EndpointList } from '../components/dashboard/EndpointList';
import { GlobeIcon, ActivityIcon, PlusIcon } from '../components/Icons';
import { mayOffer, useWorkspaces } from '../lib/workspaces';
import { NEW_ACCOUNT_STORAGE_KEY } from '../services';
import { FREE_PLAN_DEFAULTS } from '@upfleet/proto/plan';

const GraphsModal = lazy(() => import('../components/graphs/GraphsModal'));

const DEFAULT_PLAN: PlanLimits & { max_endpoints?: number } = { ...FREE_PLAN_DEFAULTS };

type Dialog =
  | { kind: 'add' }
  | { kind: 'edit'; endpoint: Endpoint }
  | { kind: 'thresholds'; endpoint: Endpoint }
  | { kind: 'graphs'; endpoint: Endpoint }
  | { kind: 'delete'; endpoint: Endpoint }
  | null;

/** Live results are folded into the list at most this often (one render for many events). */
const LIVE_FLUSH_MS = 300;
/** After a row changes state, its uptime badge is re-read once the server's 10 s uptime cache has passed. */
export const UPTIME_REFRESH_MS = 11_000;

export function DashboardPage() {
  const { api, storage } = useServices();
  const workspaceRole = useWorkspaces().role;
  const user = useAuth((s) => s.user);
  // "Welcome back" is for a return: an account just made here is welcomed once.
  const [firstVisit] = useState(() => user !== null && storage?.getItem(NEW_ACCOUNT_STORAGE_KEY) === String(user.id));
  useEffect(() => {
    if (firstVisit) storage?.removeItem(NEW_ACCOUNT_STORAGE_KEY);
  }, [firstVisit, storage]);
  // undefined: not loaded yet; null: the dashboard call failed (the list still loads, whole).
  const [dashboard, setDashboard] = useState<Dashboard | null | undefined>(undefined);
  const [regions, setRegions] = useState<Region[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  // Loaded when the add or edit form opens; undefined: the form leaves policy and dependency alone.
  const [policies, setPolicies] = useState<EscalationPolicy[] | undefined>(undefined);
  useEffect(() => {
    if (dialog?.kind !== 'add' && dialog?.kind !== 'edit') return;
    let live = true;
    void (async () => {
      try {
        const r = await api.get<EscalationPolicy[]>('/api/users/escalation-policies');
        if (live) setPolicies(r.success ? r.data : undefined);
      } catch {
        if (live) setPolicies(undefined);
      }
    })();
    return () => { live = false; };
  }, [api, dialog?.kind]);
  const [openIncidents, setOpenIncidents] = useState<Map<number, Incident>>(new Map());
  const [stream, setStream] = useState<StreamState | null>(null);
  const [params, setParams] = useSearchParams();
  const paramText = params.toString();
  const query = useMemo(() => queryFromParams(new URLSearchParams(paramText)), [paramText]);
  const list = useEndpointList(api, query, dashboard === undefined ? undefined : dashboard?.total_endpoints ?? null);
  const searchRef = useRef<HTMLInputElement>(null);

  /** Search, status filter and sort live in the URL: shareable, and a reload keeps them. Each
   *  keystroke builds on the last one written (the router's own value may not have caught up). */
  const latest = useRef({ text: paramText, params });
  if (latest.current.text !== paramText) latest.current = { text: paramText, params };
  const setQuery = useCallback((patch: Partial<ListQuery>) => {
    const next = new URLSearchParams(latest.current.params);
    const q = { ...queryFromParams(next), ...patch };
    if (q.q) next.set('q', q.q);
    else next.delete('q');
    if (q.status.length) next.set('status', q.status.join(','));
    else next.delete('status');
    if (q.sort !== DEFAULT_SORT) next.set('sort', q.sort);
    else next.delete('sort');
    latest.current = { text: next.toString(), params: next };
    setParams(next, { replace: true });
  }, [setParams]);

  // Endpoints in a maintenance window in progress (status pages): their rows say so.
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

  const loadDashboard = useCallback(async () => {
    try {
      const d = await api.get<Dashboard>('/api/users/dashboard');
      if (d.success) setDashboard(d.data);
      else {
        console.error('load dashboard failed', d.status, d.error);
        setDashboard((x) => x ?? null);
      }
    } catch (err) {
      console.error('load dashboard failed', err);
      setDashboard((x) => x ?? null);
    }
  }, [api]);

  const { reload: reloadList } = list;
  const load = useCallback(async () => {
    await Promise.all([loadDashboard(), reloadList(), loadIncidents()]);
  }, [loadDashboard, reloadList, loadIncidents]);

  useEffect(() => {
    void loadDashboard();
    void loadIncidents();
    void (async () => {
      try {
        const r = await api.publicRequest<Region[]>('GET', '/api/public/regions');
        if (r.success) setRegions(r.data ?? []);
      } catch {
        // the form offers no regions until a reload
      }
    })();
  }, [api, loadDashboard, loadIncidents]);

  // Incidents open and close while the page is open: refresh their states every 30 s (and on each incident event).
  useEffect(() => {
    const t = setInterval(() => void loadIncidents(), 30_000);
    return () => clearInterval(t);
  }, [loadIncidents]);

  // Live: results change rows and bars, other events reload what they touch. Counts come from the
  // list itself when it is held whole, else from the dashboard, re-read at most every 3 s.
  const liveRefs = useRef({ apply: list.apply, reloadList, loadDashboard, loadIncidents, serverCounts: list.counts === null, rows: list.rows });
  liveRefs.current = { apply: list.apply, reloadList, loadDashboard, loadIncidents, serverCounts: list.counts === null, rows: list.rows };
  useEffect(() => {
    let pending: ResultEvent[] = [];
    let flushTimer: ReturnType<typeof setTimeout> | null = null;
    let countsTimer: ReturnType<typeof setTimeout> | null = null;
    let reloadTimer: ReturnType<typeof setTimeout> | null = null;
    let uptimeTimer: ReturnType<typeof setTimeout> | null = null;
    // Results carry the state but not the 7-day uptime: a row that turns up or down would keep a
    // stale badge (0.00 % on an up row) until the next reload, so a change of state schedules one.
    const lastStatus = new Map<number, string>();
    const later = (timer: ReturnType<typeof setTimeout> | null, ms: number, fn: () => void) => timer ?? setTimeout(fn, ms);
    const close = connectEvents(api, {
      state: setStream,
      event: ({ type, data }) => {
        const r = liveRefs.current;
        if (type === 'result') {
          const e = data as ResultEvent;
          const before = lastStatus.get(e.url_id) ?? r.rows?.find((x) => x.url_id === e.url_id)?.status;
          lastStatus.set(e.url_id, e.status);
          if (before !== undefined && before !== e.status) uptimeTimer = later(uptimeTimer, UPTIME_REFRESH_MS, () => {
            uptimeTimer = null;
            void liveRefs.current.reloadList();
          });
          pending.push(e);
          flushTimer = later(flushTimer, LIVE_FLUSH_MS, () => {
            flushTimer = null;
            liveRefs.current.apply(pending);
            pending = [];
          });
          if (r.serverCounts) countsTimer = later(countsTimer, 3000, () => {
            countsTimer = null;
            void liveRefs.current.loadDashboard();
          });
        } else if (type === 'endpoint.changed' || type === 'resync') {
          reloadTimer = later(reloadTimer, 500, () => {
            reloadTimer = null;
            void liveRefs.current.reloadList();
            void liveRefs.current.loadDashboard();
          });
        } else if (type === 'incident.opened' || type === 'incident.resolved') {
          void r.loadIncidents();
        }
      },
    });
    return () => {
      close();
      [flushTimer, countsTimer, reloadTimer, uptimeTimer].forEach((t) => t && clearTimeout(t));
    };
  }, [api]);

  // "/" focuses the search box (unless typing somewhere already or a dialog is open).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || dialog) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      if (!searchRef.current) return;
      e.preventDefault();
      searchRef.current.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [dialog]);

  const plan: PlanLimits = dashboard ? { ...DEFAULT_PLAN, ...dashboard, package_name: dashboard.package_name || FREE_PLAN_DEFAULTS.package_name, max_regions: dashboard.max_regions || FREE_PLAN_DEFAULTS.max_regions } : DEFAULT_PLAN;

  const save = async (input: EndpointInput, endpoint?: Endpoint): Promise<SavedEndpoint | boolean> => {
    try {
      const res = endpoint ? await api.put<SavedEndpoint>(`/api/users/endpoints/${endpoint.url_id}`, input) : await api.post<SavedEndpoint>('/api/users/endpoints', input);
      if (res.success) {
        await load();
        return res.data ?? true;
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
      if (res.success) {
        list.update(ep.url_id, { monitoring_enabled: !ep.monitoring_enabled, status: ep.monitoring_enabled ? 'paused' : 'pending' });
        void loadDashboard();
      } else console.error('toggle endpoint failed', res.status, res.error);
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

  if (!list.rows) return <div className="page-loading"><Spinner /></div>;

  const total = dashboard?.total_endpoints ?? list.all;
  const counts = list.counts ?? dashboard?.status_counts ?? null;
  const maxEndpoints = dashboard?.max_endpoints;
  // The regions this plan checks from, not every region the service has.
  const usableRegions = dashboard ? Math.min(dashboard.regions_count, Math.max(1, dashboard.max_regions || 1)) : 3;

  return (
    <div className="container page">
      <header className="dash-header">
        <div>
          <h1>{firstVisit ? 'Welcome' : 'Welcome back'}, {user?.username}!</h1>
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
            <div className="stat-value">{usableRegions}{dashboard && usableRegions < dashboard.regions_count ? <span className="stat-of"> of {dashboard.regions_count}</span> : null}</div>
          </div>
        </div>
      </section>

      {counts && total > 0 && <StatusSummary counts={counts} selected={query.status} onSelect={(status) => setQuery({ status })} stream={stream} />}

      <section className="card list-card" aria-labelledby="endpoints-title">
        <div className="list-header">
          <h2 id="endpoints-title">Your Endpoints</h2>
          {mayOffer(workspaceRole, 'editor') && (
            <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'add' })}>
              <PlusIcon width={16} height={16} /> Add Endpoint
            </button>
          )}
        </div>
        {list.all === 0 ? (
          <div className="empty-state">
            <span className="empty-icon"><ActivityIcon width={28} height={28} /></span>
            <h3>No endpoints yet</h3>
            {mayOffer(workspaceRole, 'editor') ? (
              <>
                <p>Add your first website or API endpoint to start monitoring it.</p>
                <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'add' })}>Add Your First Endpoint</button>
              </>
            ) : (
              <p>An editor of this workspace adds its endpoints; you will see them here.</p>
            )}
          </div>
        ) : (
          <EndpointList
            ref={searchRef}
            rows={list.rows}
            matching={list.matching}
            all={list.all}
            more={list.more}
            onShowMore={list.showMore}
            query={query}
            onQuery={setQuery}
            openIncidents={openIncidents}
            inMaintenance={inMaintenance}
            timeZone={user?.timezone}
            onGraphs={(ep) => setDialog({ kind: 'graphs', endpoint: ep })}
            {...(mayOffer(workspaceRole, 'editor') ? {
              onEdit: (ep: Endpoint) => setDialog({ kind: 'edit', endpoint: ep }),
              onThresholds: (ep: Endpoint) => setDialog({ kind: 'thresholds', endpoint: ep }),
              onToggle: (ep: Endpoint) => void toggle(ep),
              onDelete: (ep: Endpoint) => setDialog({ kind: 'delete', endpoint: ep }),
            } : {})}
          />
        )}
      </section>

      {dialog?.kind === 'add' && <EndpointFormModal endpoint={null} regions={regions} plan={plan} policies={policies} endpoints={list.rows ?? []} onSubmit={(i) => save(i)} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'edit' && <EndpointFormModal endpoint={dialog.endpoint} regions={regions} plan={plan} policies={policies} endpoints={list.rows ?? []}
        onSubmit={(i) => save(i, dialog.endpoint)} onClose={() => setDialog(null)} />}
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
