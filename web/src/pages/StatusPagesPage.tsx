// Status pages: the user's pages (list, create/edit with a live slug check, components
// picked from the endpoints with drag-to-order and groups, a preview link), each page's reports with
// updates and subscribers; the custom domain's proof and the maintenance windows are their own components.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import {
  REPORT_IMPACTS, REPORT_STATUSES, type Endpoint, type MaintenanceWindow, type ReportImpact, type ReportStatus, type StatusPage, type StatusReport,
} from '@upfleet/proto/rest';
import { TimeZoneSelect } from '../components/TimeZoneSelect';
import { useAuth, useServices } from '../app-context';
import { Field } from '../components/Field';
import { Spinner } from '../components/Spinner';
import { DomainProof } from '../components/status-pages/DomainProof';
import { MaintenanceSection } from '../components/status-pages/MaintenanceSection';
import { formatDateTime } from '../lib/format';
import { mayOffer, useWorkspaces } from '../lib/workspaces';

interface ComponentDraft { component_id: number | null; name: string; endpoint_id: number | null; group: string }
interface PageDraft {
  slug: string; title: string; description: string; published: boolean; password: string; custom_domain: string; timezone: string; auto_reports: boolean;
  components: ComponentDraft[];
}
interface Subscribers { count: number; subscribers: Array<{ id: number; email: string; confirmed: boolean; created_at: string }> }

const emptyDraft = (timezone: string): PageDraft => ({
  slug: '', title: '', description: '', published: true, password: '', custom_domain: '', timezone, auto_reports: true, components: [],
});
const draftOf = (p: StatusPage): PageDraft => ({
  slug: p.slug, title: p.title, description: p.description, published: p.published, password: '', custom_domain: p.custom_domain ?? '',
  timezone: p.timezone, auto_reports: p.auto_reports,
  components: p.components.map((c) => ({ component_id: c.component_id, name: c.name, endpoint_id: c.endpoint_id, group: c.group ?? '' })),
});

/** A datetime-local value read in the user's zone → ISO (UTC), and back (DST included). */

export function StatusPagesPage() {
  const { api } = useServices();
  const workspaceRole = useWorkspaces().role;
  const zone = useAuth((s) => s.user?.timezone ?? 'UTC');
  const [pages, setPages] = useState<StatusPage[] | null>(null);
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const [windows, setWindows] = useState<MaintenanceWindow[]>([]);
  const [editing, setEditing] = useState<StatusPage | 'new' | null>(null);
  const [selected, setSelected] = useState<StatusPage | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const [p, e, w] = await Promise.all([
      api.get<StatusPage[]>('/api/users/status-pages'),
      api.get<Endpoint[]>('/api/users/endpoints-with-uptime'),
      api.get<MaintenanceWindow[]>('/api/users/maintenance-windows'),
    ]);
    setPages(p.success ? p.data ?? [] : []);
    setEndpoints(e.success ? e.data ?? [] : []);
    setWindows(w.success ? w.data ?? [] : []);
  }, [api]);
  useEffect(() => {
    void load();
  }, [load]);

  const remove = async (p: StatusPage) => {
    if (!window.confirm(`Delete the status page "${p.title}"?`)) return;
    const r = await api.del(`/api/users/status-pages/${p.id}`);
    if (!r.success) setError(r.error);
    if (selected?.id === p.id) setSelected(null);
    await load();
  };

  if (pages === null) return <div className="page-loading"><Spinner /></div>;
  return (
    <div className="page container">
      <div className="page-header">
        <div>
          <h1>Status pages</h1>
          <p className="page-sub">Public pages that show your services' state, incident reports and maintenance.</p>
        </div>
        {mayOffer(workspaceRole, 'admin') && <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>New status page</button>}
      </div>
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      {editing && (
        <PageEditor
          key={editing === 'new' ? 'new' : editing.id}
          page={editing === 'new' ? null : editing}
          endpoints={endpoints}
          zone={zone}
          onDone={async () => {
            setEditing(null);
            await load();
          }}
        />
      )}
      <section className="section" aria-label="Your status pages">
        {pages.length === 0 ? (
          <p className="muted">No status page yet.</p>
        ) : (
          <ul className="method-list status-page-list">
            {pages.map((p) => (
              <li key={p.id} className="card method-item" data-page={p.slug}>
                <div className="method-row">
                  <div className="method-text">
                    <strong>{p.title}</strong>{' '}
                    <span className={`badge ${p.published ? 'badge-green' : 'badge-grey'}`}>{p.published ? 'Published' : 'Draft'}</span>
                    <div className="muted small">
                      /status/{p.slug} · {p.components.length} components{p.has_password ? ' · password' : ''}
                      {p.custom_domain && <> · {p.custom_domain} <span className={`badge ${p.custom_domain_verified ? 'badge-green' : 'badge-grey'}`}>{p.custom_domain_verified ? 'Verified' : 'Not verified'}</span></>}
                    </div>
                  </div>
                  <div className="row-actions">
                    <a className="btn btn-sm btn-secondary" href={`/status/${p.slug}`} target="_blank" rel="noreferrer">Preview</a>
                    {mayOffer(workspaceRole, 'admin') && <button type="button" className="btn btn-sm btn-secondary" onClick={() => setEditing(p)}>Edit</button>}
                    <button type="button" className="btn btn-sm btn-secondary" onClick={() => setSelected(selected?.id === p.id ? null : p)}>Reports & subscribers</button>
                    {mayOffer(workspaceRole, 'admin') && <button type="button" className="btn btn-sm btn-danger-outline" onClick={() => void remove(p)}>Delete</button>}
                  </div>
                </div>
                {selected?.id === p.id && <PageDetails page={p} canEdit={mayOffer(workspaceRole, 'editor')} canAdmin={mayOffer(workspaceRole, 'admin')} />}
              </li>
            ))}
          </ul>
        )}
      </section>
      <MaintenanceSection windows={windows} endpoints={endpoints} zone={zone} onChange={load} canEdit={mayOffer(workspaceRole, 'editor')} />
    </div>
  );
}

/** The TXT record that proves a saved custom domain, its state, and a button that checks it now. */
function PageEditor({ page, endpoints, zone, onDone }: { page: StatusPage | null; endpoints: Endpoint[]; zone: string; onDone: () => Promise<void> }) {
  const { api } = useServices();
  const [d, setD] = useState<PageDraft>(page ? draftOf(page) : emptyDraft(zone));
  const [slugState, setSlugState] = useState<{ available: boolean; error: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [dragged, setDragged] = useState<number | null>(null);
  const set = <K extends keyof PageDraft>(k: K, v: PageDraft[K]) => setD((x) => ({ ...x, [k]: v }));
  const setComponent = (i: number, c: Partial<ComponentDraft>) => set('components', d.components.map((x, j) => (j === i ? { ...x, ...c } : x)));
  const move = (from: number, to: number) => {
    if (to < 0 || to >= d.components.length || from === to) return;
    const list = [...d.components];
    const [item] = list.splice(from, 1);
    list.splice(to, 0, item);
    set('components', list);
  };

  // Live slug availability (the page's own slug is available to it).
  useEffect(() => {
    if (!d.slug || d.slug === page?.slug) return setSlugState(null);
    const t = setTimeout(() => void (async () => {
      const r = await api.get<{ available: boolean; error: string | null }>(`/api/users/status-pages/slug-available?slug=${encodeURIComponent(d.slug)}`);
      if (r.success && r.data) setSlugState(r.data);
    })(), 250);
    return () => clearTimeout(t);
  }, [api, d.slug, page?.slug]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(null);
    const body = {
      ...d,
      password: d.password ? d.password : page?.has_password ? undefined : null,
      custom_domain: d.custom_domain || null,
      components: d.components.map((c) => ({ ...c, group: c.group || null })),
    };
    const r = page ? await api.put(`/api/users/status-pages/${page.id}`, body) : await api.post('/api/users/status-pages', body);
    setSaving(false);
    if (!r.success) return setError(r.error);
    await onDone();
  };

  const slugHint = slugState === null ? `Your page: /status/${d.slug || 'your-slug'}` : slugState.available ? 'Available' : slugState.error ?? 'This slug is already taken';
  return (
    <form className="card settings-card status-page-editor" onSubmit={(e) => void submit(e)} aria-label={page ? 'Edit status page' : 'New status page'}>
      <h2>{page ? `Edit ${page.title}` : 'New status page'}</h2>
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      <div className="form-grid">
        <Field id="sp-title" label="Title"><input id="sp-title" value={d.title} onChange={(e) => set('title', e.target.value)} required /></Field>
        <Field id="sp-slug" label="Slug" hint={<span data-slug-state={slugState ? String(slugState.available) : 'unknown'}>{slugHint}</span>}>
          <input id="sp-slug" value={d.slug} onChange={(e) => set('slug', e.target.value.toLowerCase())} required aria-describedby="sp-slug-hint" />
        </Field>
        <Field id="sp-desc" label="Description"><input id="sp-desc" value={d.description} onChange={(e) => set('description', e.target.value)} /></Field>
        <Field id="sp-tz" label="Timezone of the daily bars">
          <TimeZoneSelect id="sp-tz" value={d.timezone} onChange={(z) => set('timezone', z)} />
        </Field>
        <Field id="sp-domain" label="Custom domain (optional)" hint="Paid plans. Saved, it shows the DNS record that proves it is yours.">
          <input id="sp-domain" value={d.custom_domain} placeholder="status.example.com" onChange={(e) => set('custom_domain', e.target.value)} />
        </Field>
        <Field id="sp-password" label={page?.has_password ? 'New password (empty: keep it)' : 'Password (optional)'}>
          <input id="sp-password" type="password" value={d.password} autoComplete="new-password" onChange={(e) => set('password', e.target.value)} />
        </Field>
      </div>
      {page?.custom_domain && page.custom_domain === (d.custom_domain.trim().toLowerCase() || null) && <DomainProof page={page} />}
      <label className="option"><input type="checkbox" checked={d.published} onChange={(e) => set('published', e.target.checked)} /> Published</label>{' '}
      <label className="option"><input type="checkbox" checked={d.auto_reports} onChange={(e) => set('auto_reports', e.target.checked)} /> Open reports automatically from incidents</label>

      <h3>Components</h3>
      <p className="hint">Drag to order. A component without an endpoint follows reports and maintenance only.</p>
      <ol className="component-list">
        {d.components.map((c, i) => (
          <li
            key={i}
            className="card component-row"
            draggable
            onDragStart={() => setDragged(i)}
            onDragOver={(e) => e.preventDefault()}
            onDrop={() => {
              if (dragged !== null) move(dragged, i);
              setDragged(null);
            }}
            data-component-index={i}
          >
            <span aria-hidden="true" className="muted">⠿</span>
            <input aria-label={`Component ${i + 1} name`} value={c.name} onChange={(e) => setComponent(i, { name: e.target.value })} required />
            <select
              aria-label={`Component ${i + 1} endpoint`}
              value={c.endpoint_id ?? ''}
              onChange={(e) => {
                const id = e.target.value ? Number(e.target.value) : null;
                const ep = endpoints.find((x) => x.url_id === id);
                setComponent(i, { endpoint_id: id, name: c.name || ep?.name || '' });
              }}
            >
              <option value="">Static (no endpoint)</option>
              {endpoints.map((ep) => <option key={ep.url_id} value={ep.url_id}>{ep.name}</option>)}
            </select>
            <input aria-label={`Component ${i + 1} group`} placeholder="Group" value={c.group} onChange={(e) => setComponent(i, { group: e.target.value })} />
            <button type="button" className="btn btn-sm btn-ghost" aria-label={`Move component ${i + 1} up`} onClick={() => move(i, i - 1)}>↑</button>
            <button type="button" className="btn btn-sm btn-ghost" aria-label={`Move component ${i + 1} down`} onClick={() => move(i, i + 1)}>↓</button>
            <button type="button" className="btn btn-sm btn-danger-outline" aria-label={`Remove component ${i + 1}`} onClick={() => set('components', d.components.filter((_, j) => j !== i))}>Remove</button>
          </li>
        ))}
      </ol>
      <button type="button" className="btn btn-sm btn-secondary" onClick={() => set('components', [...d.components, { component_id: null, name: '', endpoint_id: null, group: '' }])}>Add component</button>
      <div className="modal-actions">
        <button type="button" className="btn btn-ghost" onClick={() => void onDone()}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={saving}>{saving ? 'Saving…' : 'Save status page'}</button>
      </div>
    </form>
  );
}

/** `canEdit`: reports (editors); `canAdmin`: removing subscribers (admins). A viewer reads only. */
function PageDetails({ page, canEdit, canAdmin }: { page: StatusPage; canEdit: boolean; canAdmin: boolean }) {
  const { api } = useServices();
  const [reports, setReports] = useState<StatusReport[]>([]);
  const [subs, setSubs] = useState<Subscribers | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [status, setStatus] = useState<ReportStatus>('investigating');
  const [message, setMessage] = useState('');
  const [impacts, setImpacts] = useState<Record<number, ReportImpact | ''>>({});
  const base = `/api/users/status-pages/${page.id}`;
  const load = useCallback(async () => {
    const [r, s] = await Promise.all([api.get<StatusReport[]>(`${base}/reports`), api.get<Subscribers>(`${base}/subscribers`)]);
    setReports(r.success ? r.data ?? [] : []);
    setSubs(s.success ? s.data ?? null : null);
  }, [api, base]);
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    const affected = Object.entries(impacts).filter(([, v]) => v).map(([id, impact]) => ({ component_id: Number(id), impact }));
    const r = await api.post(`${base}/reports`, { title, status, message, affected });
    if (!r.success) return setError(r.error);
    setTitle('');
    setMessage('');
    setImpacts({});
    setError(null);
    await load();
  };

  return (
    <div className="page-details">
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      <h3>Reports</h3>
      {canEdit && <form className="inline-form report-form" onSubmit={(e) => void create(e)} aria-label="New report">
        <input aria-label="Report title" placeholder="What is happening?" value={title} onChange={(e) => setTitle(e.target.value)} required />
        <select aria-label="Report status" value={status} onChange={(e) => setStatus(e.target.value as ReportStatus)}>
          {REPORT_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <input aria-label="Report message" placeholder="Message" value={message} onChange={(e) => setMessage(e.target.value)} required />
        {page.components.map((c) => (
          <select key={c.component_id} aria-label={`Impact on ${c.name}`} value={impacts[c.component_id] ?? ''} onChange={(e) => setImpacts((x) => ({ ...x, [c.component_id]: e.target.value as ReportImpact | '' }))}>
            <option value="">{c.name}: not affected</option>
            {REPORT_IMPACTS.map((i) => <option key={i} value={i}>{c.name}: {i.replace('_', ' ')}</option>)}
          </select>
        ))}
        <button type="submit" className="btn btn-sm btn-primary">Open report</button>
      </form>}
      {reports.length === 0 ? <p className="muted">No reports.</p> : (
        <ul className="incident-list">
          {reports.map((r) => <ReportItem key={r.report_id} base={base} report={r} onChange={load} canEdit={canEdit} />)}
        </ul>
      )}
      <h3>Subscribers</h3>
      {subs && (
        <>
          <p className="muted" data-subscriber-count={subs.count}>{subs.count} confirmed subscriber{subs.count === 1 ? '' : 's'}</p>
          <ul className="api-key-list">
            {subs.subscribers.map((s) => (
              <li key={s.id}>
                {s.email} {s.confirmed ? <span className="badge badge-green">confirmed</span> : <span className="badge badge-grey">unconfirmed</span>}{' '}
                {canAdmin && <button type="button" className="btn btn-sm btn-ghost" onClick={async () => {
                  await api.del(`${base}/subscribers/${s.id}`);
                  await load();
                }}>Remove</button>}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function ReportItem({ base, report, onChange, canEdit }: { base: string; report: StatusReport; onChange: () => Promise<void>; canEdit: boolean }) {
  const { api } = useServices();
  const [status, setStatus] = useState<ReportStatus>(report.status === 'resolved' ? 'resolved' : 'monitoring');
  const [message, setMessage] = useState('');
  const post = async (e: FormEvent) => {
    e.preventDefault();
    const r = await api.post(`${base}/reports/${report.report_id}/updates`, { status, message });
    if (r.success) {
      setMessage('');
      await onChange();
    }
  };
  return (
    <li className="card incident-row" data-report={report.report_id}>
      <strong>{report.title}</strong> <span className="badge">{report.status}</span>
      <ul>
        {report.updates.map((u) => (
          <li key={u.update_id}><strong>{u.status}</strong> — {u.message} <span className="muted small">{formatDateTime(u.created_at)}</span></li>
        ))}
      </ul>
      {canEdit && <form className="inline-form" onSubmit={(e) => void post(e)} aria-label={`Update ${report.title}`}>
        <select aria-label="Update status" value={status} onChange={(e) => setStatus(e.target.value as ReportStatus)}>
          {REPORT_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <input aria-label="Update message" value={message} onChange={(e) => setMessage(e.target.value)} required />
        <button type="submit" className="btn btn-sm btn-secondary">Post update</button>
        <button type="button" className="btn btn-sm btn-danger-outline" onClick={async () => {
          if (!window.confirm('Delete this report?')) return;
          await api.del(`${base}/reports/${report.report_id}`);
          await onChange();
        }}>Delete</button>
      </form>}
    </li>
  );
}
