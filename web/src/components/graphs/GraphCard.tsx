import { useEffect, useMemo, useRef } from 'react';
import Chart from 'react-apexcharts';
import type { ApexOptions } from 'apexcharts';
import { CODE_CLASSES, type GraphFailure, type GraphSeries } from '@upfleet/proto/rest';
import { certBarPercent, certStatus, CODE_CLASS_STYLE, codeBuckets, formatAxis, formatDateTime, formatTime, GRAPH_FUNCTION_LABELS, GRAPH_UNITS, regionKeyLabel, seriesStats, statusCodeClass, successShare } from '../../lib/format';
import { wheelZoom, zoomAtData, type TimeRange } from './range-refetch';

const COLORS: Record<string, string> = { response_time: '#4f46e5', ping: '#0ea5e9', response_code: '#10b981', cert_expiry: '#f59e0b' };

/** The failure reasons of a point: failures from its time up to the next point's (its bucket). */
export function failuresAt(data: Array<[number, number]>, index: number, failures: GraphFailure[]): string[] {
  const from = data[index]?.[0];
  if (from === undefined) return [];
  const to = data[index + 1]?.[0] ?? Infinity;
  return [...new Set(failures.filter((f) => f.t >= from && f.t < to).map((f) => f.reason))];
}

export function GraphCard({ series, view, onRange, incidents = [], failures = [] }: {
  series: GraphSeries; view: TimeRange; onRange: (range: TimeRange) => void; incidents?: TimeRange[];
  /** this location's latest failed checks, newest first: shown in the tooltip and as the last failure */
  failures?: GraphFailure[];
}) {
  const values = useMemo(() => series.data.map((p) => p[1]), [series]);
  // Response codes are codes, not quantities: counted per class, never averaged.
  const isCode = series.function === 'response_code';
  const buckets = useMemo(() => (isCode ? codeBuckets(series) : []), [isCode, series]);
  const classTotals = useMemo(() => {
    const totals = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, failed: 0 };
    for (const b of buckets) for (const c of CODE_CLASSES) totals[c] += b.classes[c];
    return totals;
  }, [buckets]);
  const stats = isCode ? null : seriesStats(values, 2);
  const unit = GRAPH_UNITS[series.function];
  const wrap = useRef<HTMLDivElement>(null);
  const viewRef = useRef(view);
  viewRef.current = view;
  const onRangeRef = useRef(onRange);
  onRangeRef.current = onRange;

  // Wheel zoom with a fixed speed of 0.1 on the time axis only (apexcharts has no speed option).
  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      onRangeRef.current(wheelZoom(viewRef.current, e.deltaY));
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  const options = useMemo<ApexOptions>(() => {
    const report = (_c: unknown, o?: { xaxis?: { min?: number; max?: number } }) => {
      const min = o?.xaxis?.min;
      const max = o?.xaxis?.max;
      if (typeof min === 'number' && typeof max === 'number' && max > min) onRangeRef.current({ from: Math.round(min), to: Math.round(max) });
    };
    return {
      chart: {
        id: series.itemId,
        animations: { enabled: false },
        fontFamily: 'inherit',
        zoom: { enabled: true, type: 'x', autoScaleYaxis: true, allowMouseWheelZoom: false },
        stacked: isCode,
        // zoom in / out are the card's own buttons: apexcharts zooms around the range's middle, they around the data
        toolbar: { show: true, autoSelected: 'pan', tools: { download: false, selection: false, zoom: true, zoomin: false, zoomout: false, pan: true, reset: false } },
        events: { zoomed: report, scrolled: report },
      },
      colors: isCode ? CODE_CLASSES.map((c) => CODE_CLASS_STYLE[c].color) : [COLORS[series.function] ?? '#4f46e5'],
      stroke: isCode ? { width: 0 } : { curve: 'smooth', width: 2 },
      fill: isCode ? { type: 'solid', opacity: 1 } : { type: 'gradient', gradient: { opacityFrom: 0.35, opacityTo: 0.02 } },
      legend: { show: isCode },
      dataLabels: { enabled: false },
      markers: { size: !isCode && series.data.length < 40 ? 3 : 0 },
      grid: { borderColor: '#eef0f4', strokeDashArray: 4 },
      xaxis: { type: 'datetime', min: view.from, max: view.to, labels: { formatter: (v: string, ts?: number) => formatAxis(ts ?? Number(v), view.to - view.from) } },
      yaxis: isCode
        ? { labels: { formatter: (v: number) => String(Math.round(v)) }, min: 0, title: { text: 'checks' } }
        : { labels: { formatter: (v: number) => `${Math.round(v)}${unit ? ` ${unit}` : ''}` }, min: series.function === 'cert_expiry' ? 0 : undefined },
      tooltip: {
        x: { formatter: (v: number) => formatDateTime(v) },
        // a point with failed checks says why ("status_code 503, expected equals 200")
        y: {
          formatter: (v: number, o?: { dataPointIndex?: number }) => {
            const text = isCode ? `${Math.round(v)} checks` : `${Math.round(v * 100) / 100}${unit ? ` ${unit}` : ''}`;
            const why = o?.dataPointIndex === undefined ? [] : failuresAt(series.data, o.dataPointIndex, failures);
            return why.length ? `${text} · failed: ${why.join('; ')}` : text;
          },
        },
      },
      // Incident periods shaded red behind the line.
      annotations: {
        xaxis: incidents.filter((p) => p.to >= view.from && p.from <= view.to).map((p) => ({
          x: p.from, x2: p.to, fillColor: '#fecaca', opacity: 0.35, borderColor: '#dc2626', label: { text: 'Incident', style: { color: '#991b1b', background: '#fee2e2' } },
        })),
      },
    };
  }, [series, view, unit, incidents, failures, isCode]);

  const chartSeries = useMemo(
    () => isCode
      ? CODE_CLASSES.map((c) => ({ name: CODE_CLASS_STYLE[c].label, data: buckets.map((b) => ({ x: b.t, y: b.classes[c] })) }))
      : [{ name: GRAPH_FUNCTION_LABELS[series.function], data: series.data.map(([t, v]) => ({ x: t, y: v })) }],
    [series, isCode, buckets],
  );
  const codes = isCode ? values.map((v) => Math.round(v)) : [];
  const lastCode = isCode ? (series.lastCode ?? codes[codes.length - 1]) : undefined;
  const uptime = series.uptime !== undefined ? (series.uptime === null ? null : series.uptime.toFixed(1)) : codes.length ? successShare(codes) : null;
  const zoom = (factor: number) => onRange(zoomAtData(view, series.data.map((p) => p[0]), factor));
  const lastDays = series.function === 'cert_expiry' ? values[values.length - 1] : undefined;

  return (
    <article className="card graph-card" aria-label={`${GRAPH_FUNCTION_LABELS[series.function]} from ${regionKeyLabel(series.location)}`}>
      <header className="graph-card-header">
        <div>
          <h3>{GRAPH_FUNCTION_LABELS[series.function]}</h3>
          <span className="chip">{regionKeyLabel(series.location)}</span>
        </div>
        {lastCode !== undefined && (
          <span className={`badge badge-${statusCodeClass(lastCode).tone}`} data-testid="last-code">{lastCode || 'No response'} {lastCode ? statusCodeClass(lastCode).label : ''}</span>
        )}
        {lastDays !== undefined && <span className={`badge badge-${certStatus(lastDays).tone}`}>{certStatus(lastDays).label}</span>}
      </header>
      {failures[0] && (
        <p className="last-failure" data-testid="last-failure">
          Last failure {formatTime(failures[0].t)}: {failures[0].reason}
        </p>
      )}
      {isCode && buckets.length > 0 && (
        <dl className="stats-row code-classes" aria-label="Checks by status class">
          {CODE_CLASSES.map((c) => (
            <div key={c} className={classTotals[c] > 0 && c !== '2xx' ? `tone-${CODE_CLASS_STYLE[c].tone}` : undefined}>
              <dt>{CODE_CLASS_STYLE[c].label}</dt><dd data-testid={`class-${c}`}>{classTotals[c]}</dd>
            </div>
          ))}
        </dl>
      )}
      {isCode && codes.length > 0 && (
        // the worst answer in the range, as a code (never an average of codes)
        <p className="muted small" data-testid="highest-code">Highest status: {Math.max(...codes) || 'no response'}</p>
      )}
      {isCode ? (buckets.length === 0 && <p className="empty-text">No data available</p>) : stats ? (
        <dl className="stats-row">
          <div><dt>High</dt><dd>{stats.high}{unit && ` ${unit}`}</dd></div>
          <div><dt>Low</dt><dd>{stats.low}{unit && ` ${unit}`}</dd></div>
          <div><dt>Average</dt><dd>{stats.avg}{unit && ` ${unit}`}</dd></div>
        </dl>
      ) : (
        <p className="empty-text">No data available</p>
      )}
      {series.function === 'response_code' && codes.length > 0 && (
        <div className="code-summary">
          <div className="code-history" aria-label="Last 10 checks">
            {codes.slice(-10).map((c, i) => (
              <span key={i} className={`code-chip tone-${statusCodeClass(c).tone}`} title={statusCodeClass(c).label}>{c || '—'}</span>
            ))}
          </div>
          {uptime !== null && <span className="uptime-share" data-testid="code-uptime"><strong>{uptime}%</strong> uptime</span>}
        </div>
      )}
      {lastDays !== undefined && (
        <div className="cert-summary">
          <div className="cert-days"><strong>{Math.round(lastDays)}</strong> days remaining</div>
          <div className="cert-bar" role="meter" aria-valuemin={0} aria-valuemax={365} aria-valuenow={Math.round(lastDays)} aria-label="Certificate days remaining">
            <span className={`cert-bar-fill tone-${certStatus(lastDays).tone}`} style={{ width: `${certBarPercent(lastDays)}%` }} />
          </div>
          <div className="cert-scale"><span>0</span><span>365 days</span></div>
        </div>
      )}
      <div ref={wrap} className="chart-wrap">
        {series.data.length > 0 && (
          <div className="zoom-buttons">
            <button type="button" className="btn btn-secondary btn-sm" aria-label="Zoom in" onClick={() => zoom(0.5)}>+</button>
            <button type="button" className="btn btn-secondary btn-sm" aria-label="Zoom out" onClick={() => zoom(2)}>−</button>
          </div>
        )}
        {series.data.length > 0 && <Chart type={isCode ? 'bar' : 'area'} height={220} options={options} series={chartSeries} />}
      </div>
    </article>
  );
}
