// The endpoint form's heartbeat part: period or cron with time zone and grace, the cron's
// next five runs, the server schema's message for a bad schedule, and a saved heartbeat's ping URL
// with its copy button and curl/crontab examples.
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Endpoint, Region } from '@upfleet/proto/rest';
import { EndpointFormModal, type PlanLimits } from './EndpointFormModal';
import { renderWith, scriptedApi, testServices } from '../../test-utils';

const regions: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
const free: PlanLimits = { package_name: 'Free', max_regions: 1, ping_host: false, cert_expiry: false, response_code: true, response_time: false, monitor_kinds: ['http', 'heartbeat'] };
const PING = 'https://upfleet.example.com/ping/abcdefghijklmnopqrstuvwxyz012345';

const NEW_PING = 'https://upfleet.example.com/ping/zyxwvutsrqponmlkjihgfedcba543210';

function renderForm(endpoint: Endpoint | null = null) {
  const onSubmit = vi.fn(async () => true);
  const api = scriptedApi({
    [`GET /api/users/endpoints/${endpoint?.url_id ?? 0}`]: async () => ({ success: true, data: { ...endpoint, ping_url: PING } }) as never,
    [`POST /api/users/endpoints/${endpoint?.url_id ?? 0}/rotate-ping-url`]: async () => ({ success: true, data: { ...endpoint, ping_url: NEW_PING } }) as never,
  });
  renderWith(<EndpointFormModal endpoint={endpoint} regions={regions} plan={free} onSubmit={onSubmit} onClose={() => undefined} />, testServices(api));
  return { onSubmit, u: userEvent.setup(), api };
}

describe('endpoint form: heartbeat', () => {
  it('creates a period heartbeat (no URL field); a period under 60 s is refused with the server message', async () => {
    const { u, onSubmit } = renderForm();
    await u.click(screen.getByRole('radio', { name: /Heartbeat/ }));
    expect(screen.queryByLabelText('URL')).toBeNull();
    await u.type(screen.getByLabelText('Name'), 'Backup');
    await u.clear(screen.getByLabelText(/^Period/));
    await u.type(screen.getByLabelText(/^Period/), '30');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(screen.getByRole('alert')).toHaveTextContent('period_seconds must be a whole number from 60 to 2678400 (31 days)');
    expect(onSubmit).not.toHaveBeenCalled();
    await u.type(screen.getByLabelText(/^Period/), '00');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'Backup', kind: 'heartbeat', period_seconds: 3000, grace_seconds: 300, url: undefined }));
  });

  it('a cron shows its next five runs and is sent with its time zone', async () => {
    const { u, onSubmit } = renderForm();
    await u.click(screen.getByRole('radio', { name: /Heartbeat/ }));
    await u.click(screen.getByRole('radio', { name: /Cron expression/ }));
    await u.type(screen.getByLabelText('Name'), 'Nightly');
    await u.clear(screen.getByLabelText(/^Cron \(/));
    await u.type(screen.getByLabelText(/^Cron \(/), '30 2 * * *');
    expect(within(screen.getByLabelText('Next runs')).getAllByRole('listitem')).toHaveLength(5);
    await u.clear(screen.getByLabelText('Time zone'));
    await u.type(screen.getByLabelText('Time zone'), 'Europe/Berlin');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ kind: 'heartbeat', cron: '30 2 * * *', timezone: 'Europe/Berlin' }));
  });

  it('a saved heartbeat shows its ping URL with a copy button and curl/crontab examples', async () => {
    const saved = { url_id: 7, guid: 'g', name: 'Nightly', url: 'heartbeat://x', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false,
      kind: 'heartbeat', period_seconds: 3600, grace_seconds: 300, monitoring_enabled: true, uptime_percentage: null, created_at: '2026-01-01T00:00:00Z' } as unknown as Endpoint;
    renderForm(saved);
    expect(await screen.findByDisplayValue(PING)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(screen.getAllByText(new RegExp(`curl -fsS -m 10 --retry 5 ${PING}`))).toHaveLength(2);
  });

  it('replaces the ping URL after a confirmation and shows the new one', async () => {
    const saved = { url_id: 8, guid: 'g', name: 'Nightly', url: 'heartbeat://y', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false,
      kind: 'heartbeat', period_seconds: 3600, grace_seconds: 300, monitoring_enabled: true, uptime_percentage: null, created_at: '2026-01-01T00:00:00Z' } as unknown as Endpoint;
    const { u, api } = renderForm(saved);
    expect(await screen.findByDisplayValue(PING)).toBeInTheDocument();
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    await u.click(screen.getByRole('button', { name: 'New URL' }));
    expect(api.calls.filter((c) => c.method === 'POST')).toEqual([]);
    await u.click(screen.getByRole('button', { name: 'New URL' }));
    expect(await screen.findByDisplayValue(NEW_PING)).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('the old one no longer works');
    expect(api.calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/users/endpoints/8/rotate-ping-url']);
    confirm.mockRestore();
  });

  it('right after creating a heartbeat shows its ping URL and the lines for its period, each with a copy button', async () => {
    const onSubmit = vi.fn(async (input: object) => ({ ...input, url_id: 9, guid: 'g', url: 'heartbeat://x', monitoring_enabled: true, created_at: '', ping_url: PING }) as never);
    const onClose = vi.fn();
    renderWith(<EndpointFormModal endpoint={null} regions={regions} plan={free} onSubmit={onSubmit} onClose={onClose} />, testServices(scriptedApi({})));
    const u = userEvent.setup();
    await u.click(screen.getByRole('radio', { name: /Heartbeat/ }));
    await u.type(screen.getByLabelText('Name'), 'Sync');
    await u.clear(screen.getByLabelText(/^Period/));
    await u.type(screen.getByLabelText(/^Period/), '900');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    const dialog = await screen.findByRole('dialog', { name: 'Heartbeat created' });
    expect(within(dialog).getByLabelText('Ping URL')).toHaveValue(PING);
    expect(within(dialog).getByLabelText('curl command')).toHaveTextContent(`curl -fsS -m 10 --retry 5 ${PING}`);
    expect(within(dialog).getByLabelText('crontab line')).toHaveTextContent(`*/15 * * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${PING}`);
    expect(within(dialog).getAllByRole('button', { name: /^Copy/ })).toHaveLength(3);
    expect(onClose).not.toHaveBeenCalled();
    await u.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(onClose).toHaveBeenCalled();
  });

  it("an edited cron's crontab line follows the cron and its time zone", async () => {
    const saved = { url_id: 7, guid: 'g', name: 'Nightly', url: 'heartbeat://x', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false,
      kind: 'heartbeat', cron: '30 2 * * *', timezone: 'Europe/Berlin', grace_seconds: 300, monitoring_enabled: true, uptime_percentage: null, created_at: '2026-01-01T00:00:00Z' } as unknown as Endpoint;
    const { u } = renderForm(saved);
    await screen.findByDisplayValue(PING);
    expect(screen.getByLabelText('crontab line').textContent).toBe(`CRON_TZ=Europe/Berlin\n30 2 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${PING}`);
    await u.clear(screen.getByLabelText(/^Cron \(/));
    await u.type(screen.getByLabelText(/^Cron \(/), '0 4 * * 1');
    expect(screen.getByLabelText('crontab line')).toHaveTextContent('0 4 * * 1 /usr/local/bin/backup.sh');
  });
});
