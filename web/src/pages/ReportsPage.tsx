// The SLA report of the current workspace: a range (this month, last month or custom dates, in the
// profile's zone, which the server cuts dates in too), figures per endpoint, region or month with
// totals, the maintenance left out, a print stylesheet for "Save as PDF" and the same data as CSV.
import { useEffect, useState } from 'react';
import type { SlaFigures, SlaGroupBy, SlaReport } from '@upfleet/proto/rest';
import { slaReportCsv } from '@upfleet/proto/sla-csv';
import { zonedDate } from '@upfleet/proto/time-zone';
import { useServices } from '../app-context';
import { displayZone, formatDate, formatDateTime, regionKeyLabel, uptimeTone } from '../lib/format';

type Preset = 'this-month' | 'last-month' | 'custom';

/** The preset's dates (YYYY-MM-DD, inclusive) as of `now` in `zone`. */
export function presetRange(preset: Exclude<Preset, 'custom'>, now: number, zone: string): { from: string; to: string } {
  const today = zonedDate(now, zone);
  const [y, m] = today.split('-').map(Number) as [number, number];
  if (preset === 'this-month') return { from: `${today.slice(0, 7)}-01`, to: today };
  const py = m === 1 ? y - 1 : y;
  const pm = m === 1 ? 12 : m - 1;
  const last = new Date(Date.UTC(py, pm, 0)).getUTCDate();
  const mm = String(pm).padStart(2, '0');
  return { from: `${py}-${mm}-01`, to: `${py}-${mm}-${String(last).padStart(2, '0')}` };
}

const minutes = (v: number | null) => (v === null ? '—' : `${v.toLocaleString('en-GB', { maximumFractionDigits: 2 })} min`);

function Figures({ f }: { f: SlaFigures }) {
  return (
    <>
      <td>{f.uptime_percentage === null ? <span className="muted">No data</span> : <span className={`badge badge-${uptimeTone(f.uptime_percentage)}`}>{f.uptime_percentage.toFixed(2)}%</span>}</td>
      <td>{minutes(f.downtime_minutes)}</td>
      <td>{f.incidents}</td>
      <td>{minutes(f.longest_outage_minutes)}</td>
      <td>{minutes(f.mttr_minutes)}</td>
      <td>{minutes(f.mtta_minutes)}</td>
    </>
  );
}

export function ReportsPage() {
  const { api } = useServices();
  const zone = displayZone();
  const [preset, setPreset] = useState<Preset>('this-month');
  const [custom, setCustom] = useState(() => presetRange('this-month', Date.now(), zone));
  const [groupBy, setGroupBy] = useState<SlaGroupBy>('endpoint');
  const [report, setReport] = useState<SlaReport | null>(null);
  const [error, setError] = useState('');
  const range = preset === 'custom' ? custom : presetRange(preset, Date.now(), zone);

  useEffect(() => {
    if (!range.from || !range.to) return;
    let live = true; // a slower answer to an earlier range never replaces this one
    const q = new URLSearchParams({ from: range.from, to: range.to, group_by: groupBy });
    void api.get<SlaReport>(`/api/users/reports/sla?${q}`).then((r) => {
      if (!live) return;
      if (r.success) {
        setReport(r.data);
        setError('');
      } else setError(r.error);
    });
    return () => {
      live = false;
    };
  }, [api, range.from, range.to, groupBy]);

  const download = () => {
    if (!report) return;
    const url = URL.createObjectURL(new Blob([slaReportCsv(report)], { type: 'text/csv' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `sla-report-${range.from}-${range.to}.csv`;
    a.click();
    URL.revokeObjectURL(url);
  };
  const detail = groupBy === 'region' ? 'Region' : groupBy === 'month' ? 'Month' : null;

  return (
    <div className="container page report-page">
      <h1>SLA report</h1>
      <p className="muted print-only">{range.from} to {range.to} ({zone})</p>
      <div className="inline-form no-print">
        <label>Range{' '}
          <select aria-label="Range" value={preset} onChange={(e) => setPreset(e.target.value as Preset)}>
            <option value="this-month">This month</option>
            <option value="last-month">Last month</option>
            <option value="custom">Custom</option>
          </select>
        </label>
        {preset === 'custom' && (
          <>
            <label>From <input type="date" aria-label="From" value={custom.from} onChange={(e) => setCustom({ ...custom, from: e.target.value })} /></label>
            <label>To <input type="date" aria-label="To" value={custom.to} onChange={(e) => setCustom({ ...custom, to: e.target.value })} /></label>
          </>
        )}
        <label>Rows{' '}
          <select aria-label="Rows" value={groupBy} onChange={(e) => setGroupBy(e.target.value as SlaGroupBy)}>
            <option value="endpoint">Per endpoint</option>
            <option value="region">Per region</option>
            <option value="month">Per month</option>
          </select>
        </label>
        <button type="button" className="btn btn-secondary" onClick={download} disabled={!report}>Download CSV</button>
        <button type="button" className="btn btn-secondary" onClick={() => window.print()} disabled={!report}>Print / Save as PDF</button>
      </div>
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      {report?.retention.clamped && (
        <p className="alert alert-info" role="status">Your plan keeps {report.retention.days} days of results: the report starts {formatDateTime(report.from, zone)}.</p>
      )}
      {report && (
        <>
          <table className="delivery-table report-table" aria-label="SLA report">
            <thead>
              <tr><th>Endpoint</th>{detail && <th>{detail}</th>}<th>Uptime</th><th>Downtime</th><th>Incidents</th><th>Longest outage</th><th>MTTR</th><th>MTTA</th></tr>
            </thead>
            <tbody>
              {report.rows.map((r) => (
                <tr key={`${r.url_id}|${r.region ?? ''}|${r.month ?? ''}`} data-testid="report-row">
                  <td>{r.name}</td>
                  {detail && <td>{r.region ? regionKeyLabel(r.region) : r.month}</td>}
                  <Figures f={r} />
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-testid="report-totals"><th scope="row">Total</th>{detail && <td />}<Figures f={report.totals} /></tr>
            </tfoot>
          </table>
          {report.rows.length === 0 && <p className="muted">No endpoints to report on.</p>}
          <h2>Maintenance left out</h2>
          {report.maintenance.length === 0 ? <p className="muted">No maintenance in this range.</p> : (
            <ul data-testid="report-maintenance">
              {report.maintenance.map((w) => <li key={w.id}>{w.title}: {formatDateTime(w.starts_at, zone)} – {formatDateTime(w.ends_at, zone)}</li>)}
            </ul>
          )}
          <p className="muted">Uptime counts checks outside maintenance; a period without results shows No data. Generated {formatDate(Date.now(), zone)}.</p>
        </>
      )}
    </div>
  );
}
