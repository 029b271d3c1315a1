// The endpoint form's check part: kind picker with plan gating, tcp/dns targets, the
// request editor (method, headers, secret, body, redirects, timeout) and assertion rows; bad input
// is refused with the server schema's message before anything is sent.
import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Endpoint, Region } from '@upfleet/proto/rest';
import { EndpointFormModal, type PlanLimits } from './EndpointFormModal';
import { renderWith, scriptedApi, testServices } from '../../test-utils';

const regions: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
const pro: PlanLimits = { package_name: 'Pro', max_regions: 1, ping_host: true, cert_expiry: true, response_code: true, response_time: true, monitor_kinds: ['http', 'tcp', 'dns', 'heartbeat'] };
const free: PlanLimits = { ...pro, package_name: 'Free', monitor_kinds: ['http', 'heartbeat'] };

function renderForm(plan: PlanLimits, endpoint: Endpoint | null = null) {
  const onSubmit = vi.fn(async () => true);
  renderWith(<EndpointFormModal endpoint={endpoint} regions={regions} plan={plan} onSubmit={onSubmit} onClose={() => undefined} />, testServices(scriptedApi({})));
  return { onSubmit, u: userEvent.setup() };
}

describe('endpoint form: check kinds', () => {
  it('creates a tcp check with its host:port (no URL field) ', async () => {
    const { u, onSubmit } = renderForm(pro);
    await u.click(screen.getByRole('radio', { name: /TCP Port/ }));
    expect(screen.queryByLabelText('URL')).toBeNull();
    await u.type(screen.getByLabelText('Name'), 'Postgres');
    await u.type(screen.getByLabelText('Host and port'), 'db.example.com');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Target must be host:port with a port from 1 to 65535');
    expect(onSubmit).not.toHaveBeenCalled();
    await u.type(screen.getByLabelText('Host and port'), ':5432');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'Postgres', kind: 'tcp', target: 'db.example.com:5432', url: undefined }));
  });

  it('creates a dns check with record type, resolver and an answer assertion', async () => {
    const { u, onSubmit } = renderForm(pro);
    await u.click(screen.getByRole('radio', { name: /DNS/ }));
    await u.type(screen.getByLabelText('Name'), 'MX');
    await u.type(screen.getByLabelText('Domain name'), 'example.com');
    await u.selectOptions(screen.getByLabelText('Record type'), 'MX');
    await u.type(screen.getByLabelText(/Resolver/), '1.1.1.1');
    await u.click(screen.getByRole('button', { name: 'Add assertion' }));
    await u.type(screen.getByLabelText('Assertion 1 target'), 'mail.example.com');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({
      kind: 'dns', target: 'example.com', record_type: 'MX', resolver: '1.1.1.1',
      assertions: [{ source: 'answer', property: '', comparison: 'contains', target: 'mail.example.com' }],
    }));
  });

  it('edits an http request (method, secret header, body, redirects, timeout) and assertions', async () => {
    const { u, onSubmit } = renderForm(pro);
    await u.type(screen.getByLabelText('Name'), 'API');
    await u.type(screen.getByLabelText('URL'), 'https://api.example.com/search');
    await u.click(screen.getByText('Request options'));
    await u.selectOptions(screen.getByLabelText('Method'), 'POST');
    await u.click(screen.getByRole('button', { name: 'Add header' }));
    await u.type(screen.getByLabelText('Header 1 name'), 'Authorization');
    await u.type(screen.getByLabelText('Header 1 value'), 'Bearer abc');
    await u.click(screen.getByRole('checkbox', { name: 'Secret' }));
    expect(screen.getByLabelText('Header 1 value')).toHaveAttribute('type', 'password');
    await u.type(screen.getByLabelText(/Request body/), 'q=1');
    await u.click(screen.getByRole('checkbox', { name: 'Follow redirects' }));
    await u.type(screen.getByLabelText(/Timeout/), '10');
    await u.click(screen.getByRole('button', { name: 'Add assertion' }));
    await u.click(screen.getByRole('button', { name: 'Add assertion' }));
    await u.selectOptions(screen.getByLabelText('Assertion 2 source'), 'json_body');
    await u.type(screen.getByLabelText('Assertion 2 property'), 'status');
    await u.clear(screen.getByLabelText('Assertion 2 target'));
    await u.type(screen.getByLabelText('Assertion 2 target'), 'ok');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(screen.getByRole('alert')).toHaveTextContent('A json_body assertion needs a JSON path such as $.status or $.items[0].id');
    await u.clear(screen.getByLabelText('Assertion 2 property'));
    await u.type(screen.getByLabelText('Assertion 2 property'), '$.status');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({
      kind: 'http', url: 'https://api.example.com/search',
      request: { method: 'POST', headers: [{ name: 'Authorization', value: 'Bearer abc', secret: true }], body: 'q=1', follow_redirects: false, timeout_seconds: 10 },
      assertions: [
        { source: 'status_code', property: '', comparison: 'equals', target: '200' },
        { source: 'json_body', property: '$.status', comparison: 'equals', target: 'ok' },
      ],
    }));
  });

  it('refuses a kind outside the plan with the SPEC feature message', async () => {
    const { u } = renderForm(free);
    await u.click(screen.getByRole('radio', { name: /TCP Port/ }));
    expect(screen.getByRole('radio', { name: /HTTP/ })).toBeChecked();
    expect(screen.getByRole('alert')).toHaveTextContent('The TCP Port monitoring feature is not available in your current plan. Please upgrade to enable this feature.');
  });

  it('an edit keeps a secret header without showing its value', async () => {
    const ep: Endpoint = {
      url_id: 3, guid: 'g', name: 'API', url: 'https://api.example.com/', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
      response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '',
      status: 'pending', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
      kind: 'http', request: { method: 'GET', headers: [{ name: 'Authorization', secret: true }], body: '', follow_redirects: true },
    };
    const { u, onSubmit } = renderForm(pro, ep);
    expect(screen.getByLabelText('Header 1 value')).toHaveValue('');
    expect(screen.getByLabelText('Header 1 value')).toHaveAttribute('placeholder', '(kept)');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ request: expect.objectContaining({ headers: [{ name: 'Authorization', secret: true }] }) }));
  });

  it('a browser check asks for its URL and is sent with no steps and the default timeout', async () => {
    const browserPlan: PlanLimits = { ...pro, monitor_kinds: ['http', 'browser'] };
    const created = renderForm(browserPlan);
    await created.u.click(screen.getByRole('radio', { name: /Browser/ }));
    await created.u.type(screen.getByLabelText('Name'), 'Home');
    await created.u.type(screen.getByLabelText('URL'), 'https://app.example.com/');
    await created.u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(created.onSubmit).toHaveBeenCalledWith(expect.objectContaining({ kind: 'browser', url: 'https://app.example.com/', steps: [], timeout_seconds: 30 }));
  });

  it('an edit of a browser check keeps its steps, with a secret fill still without its value', async () => {
    const steps = [{ action: 'fill' as const, selector: '#pw', secret: true }, { action: 'click' as const, selector: '#go' }];
    const ep: Endpoint = {
      url_id: 4, guid: 'g', name: 'Login', url: 'https://app.example.com/login', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
      response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '',
      status: 'pending', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
      kind: 'browser', steps, timeout_seconds: 45,
    };
    const { u, onSubmit } = renderForm({ ...pro, monitor_kinds: ['http', 'browser'] }, ep);
    expect(screen.getByLabelText('URL')).toHaveValue('https://app.example.com/login');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ kind: 'browser', url: 'https://app.example.com/login', steps, timeout_seconds: 45 }));
  });
});
