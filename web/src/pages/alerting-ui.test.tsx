// Alerting in the web app: Send test and deliveries per method, the webhook signing secret, the
// dashboard's Down state, and the incident history shown with the graphs.
import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { AlertDelivery, Endpoint, Incident } from '@upfleet/proto/rest';
import { AlertSettingsPage } from './AlertSettingsPage';
import { DashboardPage } from './DashboardPage';
import { IncidentHistory, incidentPeriods } from '../components/graphs/GraphsModal';
import { fail, ok, renderWith, scriptedApi, testServices } from '../test-utils';

const slack = { alert_method_id: 5, platform: 'slack' as const, is_enabled: true, platform_config: { bot_token: '•••••••1234', channel: '#ops' } };
const incident = (over: Partial<Incident> = {}): Incident => ({
  incident_id: 1, url_id: 7, condition: 'down', regions: ['EU - Germany'], cause: 'HTTP 503 from EU - Germany', flapping: false,
  opened_at: '2026-11-23T10:00:00.000Z', resolved_at: null, state: 'open', acknowledged_at: null, acknowledged_by: null, endpoint_name: null, ...over,
});

describe('Alert Settings: tests and deliveries', () => {
  it('sends a test per method and shows the outcome, the provider reason on failure', async () => {
    let answer = ok({ delivered: true });
    const api = scriptedApi({
      'GET /api/users/alert-methods': () => ok([slack]),
      'POST /api/users/alert-methods/5/test': () => answer,
    });
    renderWith(<AlertSettingsPage />, testServices(api));
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Send test' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Test message delivered');
    answer = fail('Slack: channel_not_found');
    await u.click(screen.getByRole('button', { name: 'Send test' }));
    expect(await screen.findByText('Slack: channel_not_found')).toBeInTheDocument();
  });

  it('lists a method\'s deliveries with time, event, status, attempts and last error', async () => {
    const deliveries: AlertDelivery[] = [
      { delivery_id: 2, incident_id: 1, event: 'resolved', status: 'pending', attempts: 2, last_error: 'HTTP 500', created_at: '2026-11-23T10:05:00.000Z', delivered_at: null, next_attempt_at: '2026-11-23T10:05:20.000Z' },
      { delivery_id: 1, incident_id: 1, event: 'opened', status: 'delivered', attempts: 1, last_error: null, created_at: '2026-11-23T10:00:00.000Z', delivered_at: '2026-11-23T10:00:01.000Z', next_attempt_at: null },
    ];
    const api = scriptedApi({ 'GET /api/users/alert-methods': () => ok([slack]), 'GET /api/users/alert-methods/5/deliveries': () => ok(deliveries) });
    renderWith(<AlertSettingsPage />, testServices(api));
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Deliveries' }));
    const rows = await screen.findAllByTestId('delivery-row');
    expect(rows.map((r) => within(r).getAllByRole('cell').slice(1).map((c) => c.textContent))).toEqual([
      ['Incident resolved', 'pending', '2', 'HTTP 500'],
      ['Incident opened', 'delivered', '1', ''],
    ]);
  });

  it('shows a new webhook\'s signing secret once, and again on request in the edit form', async () => {
    const secret = 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTIz';
    const webhook = { alert_method_id: 9, platform: 'webhook' as const, is_enabled: true, platform_config: { webhook_url: 'https://hooks.example.com/••••abcd' } };
    let methods: unknown[] = [];
    const api = scriptedApi({
      'GET /api/users/alert-methods': () => ok(methods),
      'POST /api/users/alert-methods': () => {
        methods = [webhook];
        return ok({ ...webhook, signing_secret: secret }, 201);
      },
      'GET /api/users/alert-methods/9/signing-secret': () => ok({ signing_secret: secret }),
    });
    renderWith(<AlertSettingsPage />, testServices(api));
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: /Add Alert Method/ }));
    await u.selectOptions(screen.getByLabelText('Platform'), 'webhook');
    await u.type(screen.getByLabelText('Webhook URL'), 'https://hooks.example.com/abcd');
    await u.click(screen.getAllByRole('button', { name: 'Add Alert Method' }).at(-1)!); // the form's submit
    expect(await screen.findByTestId('new-signing-secret')).toHaveTextContent(secret);
    await u.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('new-signing-secret')).toBeNull();
    await u.click(await screen.findByRole('button', { name: 'Edit Webhook alert method' }));
    expect(screen.queryByTestId('signing-secret')).toBeNull();
    await u.click(screen.getByRole('button', { name: 'Show signing secret' }));
    expect(await screen.findByTestId('signing-secret')).toHaveTextContent(secret);
  });
});

describe('dashboard and graphs', () => {
  const endpoint = (url_id: number, name: string): Endpoint => ({
    kind: 'http', url_id, guid: `g${url_id}`, name, url: `https://${name}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false,
    cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: 99.5, created_at: '',
  status: 'up', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
  });

  it('shows a red Down state with "since" on the row of an endpoint with an open incident only', async () => {
    const opened = new Date(Date.now() - 5 * 60_000);
    const api = scriptedApi({
      'GET /api/users/dashboard': () => ok({ active_monitoring: 2, total_endpoints: 2, regions_count: 3, package_name: 'Business', max_regions: 10, max_endpoints: 1000, multi_region: true, ping_host: true, cert_expiry: true, response_code: true, response_time: true }),
      'GET /api/users/endpoints-with-uptime': () => ok([endpoint(7, 'shop'), endpoint(8, 'blog')]),
      'GET /api/public/regions': () => ok([]),
      'GET /api/users/incidents': () => ok([incident({ opened_at: opened.toISOString() })]),
    });
    const services = testServices(api);
    renderWith(<DashboardPage />, services);
    const badge = await screen.findByTestId('down-badge');
    const time = opened.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
    expect(badge).toHaveTextContent(`Down since ${time}`);
    expect(badge).toHaveClass('badge-red');
    const rows = screen.getAllByTestId('endpoint-row');
    expect(within(rows[0]).queryByTestId('down-badge')).not.toBeNull();
    expect(within(rows[1]).queryByTestId('down-badge')).toBeNull();
  });

  it('lists an endpoint\'s incident history and turns incidents into graph periods', () => {
    const now = Date.parse('2026-11-23T12:00:00.000Z');
    const list = [
      incident({ incident_id: 2, opened_at: '2026-11-23T11:50:00.000Z' }),
      incident({ incident_id: 1, condition: 'threshold:response_time:any', cause: 'response time 2,340 ms > 1,000 ms', opened_at: '2026-11-23T10:00:00.000Z', resolved_at: '2026-11-23T10:03:20.000Z' }),
    ];
    render(<IncidentHistory incidents={list} now={now} />);
    const rows = screen.getAllByTestId('incident-row');
    expect(rows[0]).toHaveTextContent('Open');
    expect(rows[0]).toHaveTextContent('Down: HTTP 503 from EU - Germany');
    expect(rows[0]).toHaveTextContent('ongoing for 10 min');
    expect(rows[1]).toHaveTextContent('Resolved');
    expect(rows[1]).toHaveTextContent('Response Time threshold: response time 2,340 ms > 1,000 ms');
    expect(rows[1]).toHaveTextContent('lasted 3 min 20 s');
    expect(incidentPeriods(list, now)).toEqual([
      { from: Date.parse('2026-11-23T11:50:00.000Z'), to: now },
      { from: Date.parse('2026-11-23T10:00:00.000Z'), to: Date.parse('2026-11-23T10:03:20.000Z') },
    ]);
  });
});
