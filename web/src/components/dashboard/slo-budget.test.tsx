// The dashboard row's error-budget chip and the graphs modal's burn-down, over a scripted API.
import { describe, expect, it, vi } from 'vitest';
import userEvent from '@testing-library/user-event';
import { EndpointFormModal, type PlanLimits } from './EndpointFormModal';
import { screen } from '@testing-library/react';
import type { Endpoint, SloStatus } from '@upfleet/proto/rest';
import { SloBudgetBadge, budgetTone } from './SloBudget';
import { BurnDown } from '../graphs/BurnDown';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';

const slo = (remaining: number): SloStatus => ({
  url_id: 5, slo_target: 95, slo_window_days: 7, from: '2026-11-20T12:00:00.000Z', to: '2026-11-27T12:00:00.000Z', uptime_percentage: 98,
  error_budget: { allowed_minutes: 504, used_minutes: 504 - remaining, remaining_minutes: remaining },
  burn_rate_1h: 2, burn_rate_24h: 2, budget_exhausted_at: remaining > 0 ? '2026-11-29T14:24:00.000Z' : '2026-11-27T12:00:00.000Z',
  burn_down: [[Date.parse('2026-11-21T12:00:00Z'), 504], [Date.parse('2026-11-27T12:00:00Z'), remaining]],
});
const endpoint = { url_id: 5, name: 'Shop', slo_target: 95, slo_window_days: 7, uptime_percentage: 98 } as Endpoint;

describe('error budget on the dashboard', () => {
  it('colours the budget by the share left: half or more green, some yellow, none red; no target grey', () => {
    expect(budgetTone(slo(302.4))).toBe('green');
    expect(budgetTone(slo(100))).toBe('yellow');
    expect(budgetTone(slo(-20))).toBe('red');
    expect(budgetTone({ error_budget: null })).toBe('grey');
  });

  it('shows the minutes left with their colour, and asks only for endpoints with a target', async () => {
    const api = scriptedApi({ 'GET /api/users/endpoints/5/slo': () => ok(slo(302.4)) });
    renderWith(<><SloBudgetBadge endpoint={endpoint} /><SloBudgetBadge endpoint={{ ...endpoint, url_id: 6, slo_target: undefined }} /></>, testServices(api));
    const chip = await screen.findByTestId('slo-badge');
    expect(chip).toHaveTextContent('Budget 302 min left');
    expect(chip).toHaveClass('badge-green');
    expect(chip.title).toContain('SLO 95% over 7 days: 202 min of 504 min used');
    expect(api.calls.map((c) => c.path)).toEqual(['/api/users/endpoints/5/slo']);
  });

  it('says the budget is spent, in red', async () => {
    renderWith(<SloBudgetBadge endpoint={endpoint} />, testServices(scriptedApi({ 'GET /api/users/endpoints/5/slo': () => ok(slo(-20)) })));
    const chip = await screen.findByTestId('slo-badge');
    expect(chip).toHaveTextContent('Budget spent');
    expect(chip).toHaveClass('badge-red');
  });

  it('draws the burn-down with the budget, burn rates and the day it runs out', async () => {
    // apexcharts needs a layout engine (the browser test draws the chart): here the figures only
    renderWith(<BurnDown endpoint={endpoint} />, testServices(scriptedApi({ 'GET /api/users/endpoints/5/slo': () => ok({ ...slo(302.4), burn_down: [] }) })));
    const card = await screen.findByTestId('burn-down');
    expect(card).toHaveTextContent('Error budget · SLO 95% over 7 days');
    expect(card).toHaveTextContent('302.4 of 504.0 minutes left · burn rate 2 (1 h), 2 (24 h) · runs out');
  });
});

describe('SLO in the endpoint form', () => {
  const regions = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
  const plan: PlanLimits = { package_name: 'Starter', max_regions: 1, ping_host: false, cert_expiry: false, response_code: true, response_time: false, check_frequency_seconds: 60 };

  it('sends the target and window chosen, refuses a target of 100 with the API\'s message, and shows the saved ones when editing', async () => {
    const onSubmit = vi.fn(async () => true);
    renderWith(<EndpointFormModal endpoint={null} regions={regions} plan={plan} onSubmit={onSubmit} onClose={() => undefined} />, testServices(scriptedApi({})));
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Name'), 'Site');
    await u.type(screen.getByLabelText('URL'), 'https://example.com');
    await u.type(screen.getByLabelText(/SLO target/), '100');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(screen.getByRole('alert')).toHaveTextContent('slo_target must be a percentage above 0 and below 100, such as 99.9');
    expect(onSubmit).not.toHaveBeenCalled();
    await u.clear(screen.getByLabelText(/SLO target/));
    await u.type(screen.getByLabelText(/SLO target/), '99.9');
    await u.selectOptions(screen.getByLabelText('SLO window'), '28 days');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'Site', slo_target: 99.9, slo_window_days: 28 }));
  });

  it('shows an endpoint\'s saved SLO when editing it; an empty target sends none', async () => {
    const onSubmit = vi.fn(async () => true);
    const ep = { ...endpoint, kind: 'http', guid: 'g', url: 'https://shop.example.com', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, created_at: '' } as Endpoint;
    renderWith(<EndpointFormModal endpoint={ep} regions={regions} plan={plan} onSubmit={onSubmit} onClose={() => undefined} />, testServices(scriptedApi({})));
    expect(screen.getByLabelText(/SLO target/)).toHaveValue('95');
    expect(screen.getByLabelText('SLO window')).toHaveValue('7');
    const u = userEvent.setup();
    await u.clear(screen.getByLabelText(/SLO target/));
    await u.click(screen.getByRole('button', { name: /Save|Update/ }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ slo_target: null, slo_window_days: 7 }));
  });
});
