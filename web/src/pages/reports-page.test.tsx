import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SlaReport } from '@upfleet/proto/rest';
import { ReportsPage, presetRange } from './ReportsPage';
import { ok, renderWith, scriptedApi, testServices } from '../test-utils';
import { setDisplayZone } from '../lib/format';

const figures = { checks: 60, uptime_percentage: 66.67, downtime_minutes: 480, incidents: 2, longest_outage_minutes: 20, mttr_minutes: 15, mtta_minutes: 5 };
const report: SlaReport = {
  from: '2026-11-01T00:00:00.000Z', to: '2026-11-28T00:00:00.000Z', timezone: 'UTC', group_by: 'endpoint',
  retention: { days: 30, clamped: false, requested_from: '2026-11-01T00:00:00.000Z' },
  rows: [
    { url_id: 1, name: 'Shop', region: null, month: null, ...figures },
    { url_id: 2, name: 'Quiet', region: null, month: null, checks: 0, uptime_percentage: null, downtime_minutes: null, incidents: 0, longest_outage_minutes: null, mttr_minutes: null, mtta_minutes: null },
  ],
  totals: figures,
  maintenance: [{ id: 7, title: 'Database upgrade', endpoint_ids: [1], starts_at: '2026-11-10T10:20:00.000Z', ends_at: '2026-11-10T10:40:00.000Z' }],
};

afterEach(() => {
  setDisplayZone(null);
  vi.unstubAllGlobals();
});

describe('presetRange', () => {
  it('cuts this month and last month in the profile\'s zone, not the browser\'s', () => {
    const t = Date.parse('2026-03-01T00:30:00+01:00'); // still 28 February in UTC
    expect(presetRange('this-month', t, 'Europe/Berlin')).toEqual({ from: '2026-03-01', to: '2026-03-01' });
    expect(presetRange('last-month', t, 'Europe/Berlin')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(presetRange('last-month', t, 'UTC')).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    expect(presetRange('last-month', Date.parse('2026-01-15T12:00:00Z'), 'UTC')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
  });
});

describe('Reports page', () => {
  it('shows each endpoint\'s figures with totals, no data as "No data" (never 100 %), and the maintenance left out', async () => {
    setDisplayZone('UTC');
    const api = scriptedApi({ 'GET /api/users/reports/sla': () => ok(report) });
    renderWith(<ReportsPage />, testServices(api));
    const rows = await screen.findAllByTestId('report-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Shop66.67%480 min220 min15 min5 min');
    expect(within(rows[1]).getByText('No data')).toBeInTheDocument();
    expect(rows[1]).not.toHaveTextContent('100');
    expect(screen.getByTestId('report-totals')).toHaveTextContent('Total66.67%480 min2');
    expect(screen.getByTestId('report-maintenance')).toHaveTextContent('Database upgrade: 10 Nov 2026, 10:20 – 10 Nov 2026, 10:40');
    const { from, to } = presetRange('this-month', Date.now(), 'UTC');
    expect(api.calls[0].path).toBe(`/api/users/reports/sla?from=${from}&to=${to}&group_by=endpoint`);
  });

  it('asks again for last month, a custom range and per-region rows', async () => {
    setDisplayZone('UTC');
    const api = scriptedApi({ 'GET /api/users/reports/sla': () => ok(report) });
    renderWith(<ReportsPage />, testServices(api));
    await screen.findAllByTestId('report-row');
    const u = userEvent.setup();
    await u.selectOptions(screen.getByLabelText('Range'), 'last-month');
    const last = presetRange('last-month', Date.now(), 'UTC');
    await waitFor(() => expect(api.calls.at(-1)!.path).toBe(`/api/users/reports/sla?from=${last.from}&to=${last.to}&group_by=endpoint`));
    await u.selectOptions(screen.getByLabelText('Range'), 'custom');
    await u.clear(screen.getByLabelText('From'));
    await u.type(screen.getByLabelText('From'), '2026-10-05');
    await u.selectOptions(screen.getByLabelText('Rows'), 'region');
    await waitFor(() => expect(api.calls.at(-1)!.path).toMatch(/^\/api\/users\/reports\/sla\?from=2026-10-05&to=\d{4}-\d{2}-\d{2}&group_by=region$/));
  });

  it('downloads the same figures as CSV, no data as an empty cell', async () => {
    setDisplayZone('UTC');
    let blob: Blob | null = null;
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (b: Blob) => { blob = b; return 'blob:report'; }, revokeObjectURL: () => undefined }));
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    renderWith(<ReportsPage />, testServices(scriptedApi({ 'GET /api/users/reports/sla': () => ok(report) })));
    await screen.findAllByTestId('report-row');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Download CSV' }));
    expect(clicked).toHaveBeenCalled();
    // jsdom's Blob has no text(): read it with a FileReader, as a page would
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as string);
      reader.readAsText(blob!);
    });
    expect(text.split('\r\n')).toEqual([
      'endpoint,url_id,region,month,uptime_percentage,downtime_minutes,checks,incidents,longest_outage_minutes,mttr_minutes,mtta_minutes',
      'Shop,1,,,66.67,480,60,2,20,15,5',
      'Quiet,2,,,,,0,0,,,',
      'Total,,,,66.67,480,60,2,20,15,5',
      '',
    ]);
  });

  it('says where the report starts when the plan\'s retention clamped it', async () => {
    setDisplayZone('UTC');
    const clamped = { ...report, retention: { days: 30, clamped: true, requested_from: '2026-09-01T00:00:00.000Z' } };
    renderWith(<ReportsPage />, testServices(scriptedApi({ 'GET /api/users/reports/sla': () => ok(clamped) })));
    expect(await screen.findByRole('status')).toHaveTextContent('Your plan keeps 30 days of results: the report starts 1 Nov 2026, 00:00.');
  });
});
