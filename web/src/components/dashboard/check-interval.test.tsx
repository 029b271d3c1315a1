// The endpoint form's check interval: the plan's by default, longer ones to choose, none shorter.
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Endpoint, Region } from '@upfleet/proto/rest';
import { EndpointFormModal, type PlanLimits } from './EndpointFormModal';
import { renderWith, scriptedApi, testServices } from '../../test-utils';

const regions: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
const starter: PlanLimits = { package_name: 'Starter', max_regions: 1, ping_host: false, cert_expiry: false, response_code: true, response_time: false, check_frequency_seconds: 60 };

function renderForm(ep: Endpoint | null = null) {
  const onSubmit = vi.fn(async () => true);
  renderWith(<EndpointFormModal endpoint={ep} regions={regions} plan={starter} onSubmit={onSubmit} onClose={() => undefined} />, testServices(scriptedApi({})));
  return { onSubmit, u: userEvent.setup() };
}

describe('check interval in the endpoint form', () => {
  it("offers the plan's interval first and only longer ones, and sends the one chosen", async () => {
    const { u, onSubmit } = renderForm();
    const select = screen.getByLabelText('Check interval');
    const options = within(select).getAllByRole('option').map((o) => o.textContent);
    expect(options[0]).toBe("Every 1 minute (your Starter plan's)");
    expect(options).not.toContain('Every 30 seconds');
    expect(options).toContain('Every 10 minutes');
    await u.type(screen.getByLabelText('Name'), 'Site');
    await u.type(screen.getByLabelText('URL'), 'https://example.com');
    await u.selectOptions(select, 'Every 10 minutes');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'Site', check_frequency_seconds: 600 }));
  });

  it("keeps the plan's interval unless one is chosen", async () => {
    const { u, onSubmit } = renderForm();
    await u.type(screen.getByLabelText('Name'), 'Site');
    await u.type(screen.getByLabelText('URL'), 'https://example.com');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect((onSubmit.mock.calls as unknown as Array<[Record<string, unknown>]>)[0][0]).not.toHaveProperty('check_frequency_seconds');
  });

  it("shows an endpoint's own interval when editing it", () => {
    renderForm({
      kind: 'http', url_id: 7, guid: 'g', name: 'Shop', url: 'https://shop.example.com', description: '', regions: ['EU-Germany'], check_frequency_seconds: 900,
      ping_host: false, cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: 100, created_at: '',
      status: 'up', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
    });
    expect(screen.getByLabelText('Check interval')).toHaveValue('900');
  });
});
