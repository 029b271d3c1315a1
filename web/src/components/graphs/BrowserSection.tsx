// A browser endpoint's part of the graphs modal: its page timings (TTFB, DOMContentLoaded, load,
// LCP, total) charted per location, the latest failing run (step, action, reason, console errors,
// failed requests) and the stored screenshots, newest first.
import { useEffect, useMemo, useState } from 'react';
import Chart from 'react-apexcharts';
import type { ApexOptions } from 'apexcharts';
import { BROWSER_TIMING_LABELS, BROWSER_TIMINGS, type BrowserGraphs, type ScreenshotInfo } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { formatAxis, formatDateTime, regionKeyLabel } from '../../lib/format';
import type { TimeRange } from './range-refetch';
import { ScreenshotThumb } from './ScreenshotThumb';

const TIMING_COLORS = ['#0ea5e9', '#6366f1', '#10b981', '#f59e0b', '#4f46e5'];

export function BrowserSection({ urlId, browser, location, view, reloadTick = 0 }: {
  urlId: number; browser: BrowserGraphs; location: string; view: TimeRange; reloadTick?: number;
}) {
  const { api } = useServices();
  const [shots, setShots] = useState<ScreenshotInfo[]>([]);
  useEffect(() => {
    let live = true;
    api.get<ScreenshotInfo[]>(`/api/users/endpoints/${urlId}/screenshots`)
      .then((r) => live && r.success && setShots(r.data ?? []))
      .catch(() => undefined); // the timings still show without them
    return () => {
      live = false;
    };
  }, [api, urlId, reloadTick]);

  const series = browser.timings.filter((s) => location === 'all' || s.location === location);
  const locations = [...new Set(series.map((s) => s.location))].sort();
  const failure = browser.lastFailure && (location === 'all' || browser.lastFailure.location === location) ? browser.lastFailure : null;
  const failureShots = failure ? shots.filter((s) => failure.screenshot_ids.includes(s.id)) : [];
  const otherShots = shots.filter((s) => !failureShots.includes(s));

  return (
    <section className="card browser-section" aria-label="Browser check">
      <h3>Page timings</h3>
      {locations.length === 0 ? <p className="muted small">No browser runs in this range.</p> : locations.map((loc) => (
        <TimingsChart key={loc} location={loc} series={series.filter((s) => s.location === loc)} view={view} />
      ))}
      <h3>Last failure</h3>
      {failure ? (
        <div className="browser-failure" data-testid="browser-failure">
          <p>
            <strong>{failure.step > 0 ? `Step ${failure.step}` : 'Page load'}{failure.action ? ` (${failure.action})` : ''}</strong>: {failure.reason}
          </p>
          <p className="muted small">{formatDateTime(failure.t)} · {regionKeyLabel(failure.location)}</p>
          {failure.console_errors.length > 0 && (
            <>
              <h4>Console errors</h4>
              <ul className="browser-list" aria-label="Console errors">{failure.console_errors.map((e, i) => <li key={i}><code>{e}</code></li>)}</ul>
            </>
          )}
          {failure.failed_requests.length > 0 && (
            <>
              <h4>Failed requests</h4>
              <ul className="browser-list" aria-label="Failed requests">{failure.failed_requests.map((e, i) => <li key={i}><code>{e}</code></li>)}</ul>
            </>
          )}
          {failureShots.length > 0 && <div className="screenshot-grid">{failureShots.map((s) => <ScreenshotThumb key={s.id} urlId={urlId} shot={s} />)}</div>}
        </div>
      ) : <p className="muted small">No failed run in this range.</p>}
      {otherShots.length > 0 && (
        <>
          <h3>Screenshots</h3>
          <div className="screenshot-grid">{otherShots.map((s) => <ScreenshotThumb key={s.id} urlId={urlId} shot={s} />)}</div>
        </>
      )}
    </section>
  );
}

function TimingsChart({ location, series, view }: { location: string; series: BrowserGraphs['timings']; view: TimeRange }) {
  const options = useMemo<ApexOptions>(() => ({
    chart: { id: `browser-timings-${location}`, animations: { enabled: false }, fontFamily: 'inherit', toolbar: { show: false }, zoom: { enabled: false } },
    colors: BROWSER_TIMINGS.map((_, i) => TIMING_COLORS[i]),
    stroke: { curve: 'smooth', width: 2 },
    legend: { show: true },
    dataLabels: { enabled: false },
    markers: { size: series.some((s) => s.data.length < 40) ? 3 : 0 },
    grid: { borderColor: '#eef0f4', strokeDashArray: 4 },
    xaxis: { type: 'datetime', min: view.from, max: view.to, labels: { formatter: (v: string, ts?: number) => formatAxis(ts ?? Number(v), view.to - view.from) } },
    yaxis: { min: 0, labels: { formatter: (v: number) => `${Math.round(v)} ms` } },
    tooltip: { x: { formatter: (v: number) => formatDateTime(v) }, y: { formatter: (v: number) => `${Math.round(v * 100) / 100} ms` } },
  }), [location, series, view]);
  const chartSeries = useMemo(
    () => BROWSER_TIMINGS.map((t) => ({ name: BROWSER_TIMING_LABELS[t], data: (series.find((s) => s.timing === t)?.data ?? []).map(([x, y]) => ({ x, y })) })),
    [series],
  );
  const latest = BROWSER_TIMINGS.map((t) => [t, series.find((s) => s.timing === t)?.data.at(-1)?.[1]] as const).filter(([, v]) => v !== undefined);
  return (
    <article className="graph-card browser-timings" aria-label={`Page timings from ${regionKeyLabel(location)}`}>
      <span className="chip">{regionKeyLabel(location)}</span>
      <Chart options={options} series={chartSeries} type="line" height={240} />
      <p className="muted small" data-testid="browser-latest">
        Latest: {latest.map(([t, v]) => `${BROWSER_TIMING_LABELS[t]} ${Math.round(v! * 10) / 10} ms`).join(' · ')}
      </p>
    </article>
  );
}
