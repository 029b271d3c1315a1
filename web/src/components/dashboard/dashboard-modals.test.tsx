import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Endpoint, Region } from '@upfleet/proto/rest';
import { EndpointFormModal, initialForm, type PlanLimits } from './EndpointFormModal';
import { ThresholdsModal } from './ThresholdsModal';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';

const regions: Region[] = [
  { region_id: 1, region: 'EU', city: 'Germany', primary_region: true },
  { region_id: 2, region: 'US', city: 'Virginia', primary_region: false },
  { region_id: 3, region: 'AP', city: 'Singapore', primary_region: false },
];
const free: PlanLimits = { package_name: 'Free', max_regions: 1, ping_host: false, cert_expiry: false, response_code: true, response_time: false };
const pro: PlanLimits = { package_name: 'Pro', max_regions: 2, ping_host: true, cert_expiry: true, response_code: true, response_time: true };
const endpoint: Endpoint = {
  kind: 'http', url_id: 7, guid: 'g', name: 'Shop', url: 'https://shop.example.com', description: '', regions: ['EU-Germany', 'Mars-Base'],
  ping_host: false, cert_expiry: false, response_code: true, response_time: true, monitoring_enabled: true, uptime_percentage: 99.9, created_at: '',
  status: 'up', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
};

function renderForm(plan: PlanLimits, onSubmit = vi.fn(async () => true), ep: Endpoint | null = null) {
  renderWith(<EndpointFormModal endpoint={ep} regions={regions} plan={plan} onSubmit={onSubmit} onClose={() => undefined} />, testServices(scriptedApi({})));
  return { onSubmit, u: userEvent.setup() };
}

describe('endpoint form', () => {
  it('defaults to Response Code on and the other features off', () => {
    renderForm(free);
    expect(screen.getByRole('checkbox', { name: /Response Code/ })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: /Response Time/ })).not.toBeChecked();
    expect(screen.getByRole('checkbox', { name: /Ping Host/ })).not.toBeChecked();
  });

  it('refuses a feature outside the plan with the SPEC message', async () => {
    const { u } = renderForm(free);
    await u.click(screen.getByRole('checkbox', { name: /Certificate Expiry/ }));
    expect(screen.getByRole('checkbox', { name: /Certificate Expiry/ })).not.toBeChecked();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'The Certificate Expiry monitoring feature is not available in your current plan. Please upgrade to enable this feature.',
    );
  });

  it('with max_regions 1 offers only EU - Germany without a choice and submits it', async () => {
    const { u, onSubmit } = renderForm(free);
    expect(screen.getByText('EU - Germany')).toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: /US - Virginia/ })).toBeNull();
    await u.type(screen.getByLabelText('Name'), 'Site');
    await u.type(screen.getByLabelText('URL'), 'https://example.com');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'Site', regions: ['EU-Germany'], response_code: true, ping_host: false }));
  });

  it('caps regions at max_regions with the SPEC message', async () => {
    const { u } = renderForm(pro);
    await u.click(screen.getByRole('checkbox', { name: /US - Virginia/ }));
    await u.click(screen.getByRole('checkbox', { name: /AP - Singapore/ }));
    expect(screen.getByRole('checkbox', { name: /AP - Singapore/ })).not.toBeChecked();
    expect(screen.getByRole('alert')).toHaveTextContent('You can only select up to 2 region(s) with your Pro plan. Please upgrade to select more regions.');
  });

  it('requires a name and a valid URL', async () => {
    const { u, onSubmit } = renderForm(pro);
    await u.type(screen.getByLabelText('Name'), 'Site');
    await u.type(screen.getByLabelText('URL'), 'example');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid URL');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('edit pre-fill keeps only regions whose region-city is known', () => {
    expect(initialForm(endpoint, regions, pro).regions).toEqual(['EU-Germany']);
  });
});

describe('alert thresholds modal', () => {
  const api = () =>
    scriptedApi({
      'GET /api/users/endpoints/7/alert-thresholds': () => ok([]),
      'GET /api/users/monitor-types': () =>
        ok([
          { monitor_type_id: 1, type_code: 'response_code', display_name: 'Response Code', requires_primary_region: true },
          { monitor_type_id: 2, type_code: 'response_time', display_name: 'Response Time', requires_primary_region: false },
        ]),
      'GET /api/users/regions': () => ok(regions),
      'PUT /api/users/endpoints/7/alert-thresholds': () => ok(null),
    });

  it("is titled 'Alert Thresholds for {name}', refuses values below 1 and rounds on save", async () => {
    const a = api();
    const onClose = vi.fn();
    renderWith(<ThresholdsModal endpoint={endpoint} onClose={onClose} />, testServices(a));
    expect(screen.getByRole('heading', { name: 'Alert Thresholds for Shop' })).toBeInTheDocument();
    const u = userEvent.setup();
    const value = await screen.findByLabelText('Threshold value for Response Time');
    expect(value).toHaveAttribute('min', '1');
    await u.clear(value);
    await u.type(value, '0');
    await u.click(screen.getByRole('button', { name: 'Save Thresholds' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter valid threshold values for all thresholds before saving.');
    await u.clear(value);
    await u.type(value, '250.6');
    await u.click(screen.getByRole('checkbox', { name: /Enable Response Time/ }));
    await u.selectOptions(screen.getByLabelText('Operator for Response Time'), '>=');
    await u.click(screen.getByRole('button', { name: 'Save Thresholds' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const put = a.calls.find((c) => c.method === 'PUT')!;
    expect((put.body as { alert_thresholds: unknown[] }).alert_thresholds).toContainEqual({
      monitor_type_id: 2, threshold_value: 251, threshold_operator: '>=', is_enabled: true, region_id: 1,
    });
    // Response code runs from the primary region only.
    expect((put.body as { alert_thresholds: Array<{ monitor_type_id: number }> }).alert_thresholds.filter((t) => t.monitor_type_id === 1)).toHaveLength(1);
  });
});

describe('threshold rows', () => {
  it('keeps one row for a primary-only check the server stored without a region id', async () => {
    const { buildThresholdRows } = await import('./ThresholdsModal');
    const rows = buildThresholdRows(
      { ...endpoint, response_time: false },
      [{ threshold_id: 0, monitor_type_id: 1, threshold_value: 400, threshold_operator: '>=', is_enabled: false, region_id: null, monitor_type: 'response_code', display_name: 'Response Code', region_name: null }],
      [{ monitor_type_id: 1, type_code: 'response_code', display_name: 'Response Code', requires_primary_region: true }],
      regions,
    );
    expect(rows).toHaveLength(1);
  });
});
