// The SLA report as CSV (the route's format=csv and the Reports page's download): one line per
// row, then the totals. Browser-safe. Cells that a spreadsheet would run as a formula are quoted
// with a leading apostrophe.
import type { SlaFigures, SlaReport } from './rest';

const HEADER = ['endpoint', 'url_id', 'region', 'month', 'uptime_percentage', 'downtime_minutes', 'checks', 'incidents', 'longest_outage_minutes', 'mttr_minutes', 'mtta_minutes'];

function cell(v: string | number | null): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const figures = (f: SlaFigures) => [f.uptime_percentage, f.downtime_minutes, f.checks, f.incidents, f.longest_outage_minutes, f.mttr_minutes, f.mtta_minutes];

/** No data is an empty cell, never 100. */
export function slaReportCsv(r: SlaReport): string {
  const lines = [HEADER.join(',')];
  for (const row of r.rows) lines.push([row.name, row.url_id, row.region, row.month, ...figures(row)].map(cell).join(','));
  lines.push(['Total', null, null, null, ...figures(r.totals)].map(cell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
