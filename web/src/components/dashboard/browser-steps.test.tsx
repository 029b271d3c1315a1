// The endpoint form's step editor for browser checks (add, reorder, delete, a secret fill masked
// and kept on edit, each step's error naming it as the API does) and "Run now" showing a result
// with its failing step, step times and screenshot.
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Endpoint, Region } from '@upfleet/proto/rest';
import type { BrowserRunResult } from '@upfleet/proto/schemas';
import { EndpointFormModal, type PlanLimits } from './EndpointFormModal';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';

const regions: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
const plan: PlanLimits = { package_name: 'Pro', max_regions: 1, ping_host: true, cert_expiry: true, response_code: true, response_time: true, monitor_kinds: ['http', 'browser'], check_frequency_seconds: 300 };

function renderForm(endpoint: Endpoint | null = null, routes: Parameters<typeof scriptedApi>[0] = {}) {
  const onSubmit = vi.fn(async () => true);
  const api = scriptedApi(routes);
  renderWith(<EndpointFormModal endpoint={endpoint} regions={regions} plan={plan} onSubmit={onSubmit} onClose={() => undefined} />, testServices(api));
  return { onSubmit, api, u: userEvent.setup() };
}

async function addStep(u: ReturnType<typeof userEvent.setup>, action: string) {
  await u.selectOptions(screen.getByLabelText('New step action'), action);
  await u.click(screen.getByRole('button', { name: 'Add step' }));
}

const rows = () => screen.queryAllByTestId('step-row');

// Typing many fields takes a few seconds on a shared machine.
describe('browser check step editor', { timeout: 30_000 }, () => {
  it('adds steps with each action\'s fields, reorders and deletes them, and sends them in order', async () => {
    const { u, onSubmit } = renderForm();
    await u.click(screen.getByRole('radio', { name: /Browser/ }));
    await u.type(screen.getByLabelText('Name'), 'Login');
    await u.type(screen.getByLabelText('URL'), 'https://app.example.com/login');
    await addStep(u, 'fill');
    await u.type(screen.getByLabelText('Step 1 selector'), '#email');
    await u.type(screen.getByLabelText('Step 1 value'), 'me@example.com');
    await addStep(u, 'click');
    await u.type(screen.getByLabelText('Step 2 selector'), 'text=Sign in');
    await addStep(u, 'expect_title');
    await u.type(screen.getByLabelText('Step 3 contains'), 'Dashboard');
    expect(screen.queryByLabelText('Step 3 selector')).toBeNull();
    await addStep(u, 'screenshot');
    await u.type(screen.getByLabelText('Step 4 name'), 'after login');
    expect(rows()).toHaveLength(4);

    // the screenshot before the title check, then the click removed
    await u.click(screen.getByRole('button', { name: 'Move step 4 up' }));
    expect(within(rows()[2]).getByText('Step 3: screenshot')).toBeInTheDocument();
    expect(screen.getByLabelText('Step 4 contains')).toHaveValue('Dashboard');
    await u.click(screen.getByRole('button', { name: 'Delete step 2' }));
    expect(rows()).toHaveLength(3);
    await u.clear(screen.getByLabelText('Timeout (seconds, at most 60)'));
    await u.type(screen.getByLabelText('Timeout (seconds, at most 60)'), '45');

    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({
      kind: 'browser', url: 'https://app.example.com/login', timeout_seconds: 45,
      steps: [
        { action: 'fill', selector: '#email', value: 'me@example.com' },
        { action: 'screenshot', name: 'after login' },
        { action: 'expect_title', contains: 'Dashboard' },
      ],
    }));
  });

  it('names the step that is wrong, as the API does, and sends nothing until it is fixed', async () => {
    const { u, onSubmit } = renderForm();
    await u.click(screen.getByRole('radio', { name: /Browser/ }));
    await u.type(screen.getByLabelText('Name'), 'Home');
    await u.type(screen.getByLabelText('URL'), 'https://app.example.com/');
    await addStep(u, 'screenshot');
    await addStep(u, 'click');
    await u.type(screen.getByLabelText('Step 1 name'), 'home');
    await u.type(screen.getByLabelText('Step 2 selector'), 'xpath=//button');
    expect(within(rows()[1]).getByTestId('step-error')).toHaveTextContent('Step 2 (click): selector must be CSS or a text= / role= selector');
    expect(within(rows()[0]).queryByTestId('step-error')).toBeNull();
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Step 2 (click): selector must be CSS or a text= / role= selector');
    expect(onSubmit).not.toHaveBeenCalled();
    await u.clear(screen.getByLabelText('Step 2 selector'));
    await u.type(screen.getByLabelText('Step 2 selector'), 'role=button[[name="Go"]');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalled();
  });

  it('masks a secret fill value, and an edit shows a saved one as kept, never its value, and sends it without one', async () => {
    const ep: Endpoint = {
      url_id: 4, guid: 'g', name: 'Login', url: 'https://app.example.com/login', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
      response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '',
      status: 'pending', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
      kind: 'browser', steps: [{ action: 'fill', selector: '#pw', secret: true }], timeout_seconds: 30,
    };
    const { u, onSubmit } = renderForm(ep);
    expect(screen.getByLabelText('Step 1 value')).toHaveAttribute('type', 'password');
    expect(screen.getByLabelText('Step 1 value')).toHaveValue('');
    expect(screen.getByLabelText('Step 1 value')).toHaveAttribute('placeholder', '(kept)');
    expect(screen.getByLabelText('Step 1 secret')).toBeChecked();
    expect(screen.queryByTestId('step-error')).toBeNull();
    // a new secret fill needs its value
    await addStep(u, 'fill');
    await u.type(screen.getByLabelText('Step 2 selector'), '#otp');
    await u.click(screen.getByLabelText('Step 2 secret'));
    expect(screen.getByLabelText('Step 2 value')).toHaveAttribute('type', 'password');
    expect(within(rows()[1]).getByTestId('step-error')).toHaveTextContent('Step 2 (fill): value is required');
    await u.type(screen.getByLabelText('Step 2 value'), '123456');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({
      steps: [{ action: 'fill', selector: '#pw', secret: true }, { action: 'fill', selector: '#otp', value: '123456', secret: true }],
    }));
  });
});

describe('Run now', { timeout: 30_000 }, () => {
  const failed: BrowserRunResult = {
    ok: false, error: 'text "Welcome" not found in h1', failed_step: 2, failed_action: 'expect_text', region: 'EU-Germany',
    total_ms: 1234, ttfb_ms: 12, dom_content_loaded_ms: 40, load_ms: 55, lcp_ms: 60, step_ms: [20, 5000],
    console_errors: ['Uncaught Error: bundle broke'], failed_requests: ['GET http://127.0.0.1/app.js net::ERR_CONNECTION_REFUSED'],
    screenshots: [{ name: 'failure', mime: 'image/png', step: 2, data_base64: 'iVBORw0KGgo=' }],
  };

  it('runs the unsaved check with the saved endpoint\'s id and shows the failing step, times, errors and the screenshot', async () => {
    const ep: Endpoint = {
      url_id: 9, guid: 'g', name: 'Login', url: 'https://app.example.com/login', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false,
      response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '',
      status: 'pending', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
      kind: 'browser', steps: [{ action: 'fill', selector: '#pw', secret: true }, { action: 'expect_text', selector: 'h1', contains: 'Welcome' }], timeout_seconds: 20,
    };
    const { u, api } = renderForm(ep, { 'POST /api/users/endpoints/browser-run': () => ok(failed) });
    await u.click(screen.getByRole('button', { name: 'Run now' }));
    expect(api.calls.at(-1)).toEqual({
      method: 'POST', path: '/api/users/endpoints/browser-run',
      body: { url: 'https://app.example.com/login', steps: ep.steps, timeout_seconds: 20, url_id: 9 },
    });
    expect(await screen.findByTestId('run-outcome')).toHaveTextContent('Failed at step 2 (expect_text): text "Welcome" not found in h1');
    const result = screen.getByRole('region', { name: 'Run result' });
    expect(within(result).getByLabelText('Step times')).toHaveTextContent('Step 2: 5000 ms (failed)');
    expect(within(result).getByLabelText('Console errors')).toHaveTextContent('Uncaught Error: bundle broke');
    expect(within(result).getByLabelText('Failed requests')).toHaveTextContent('net::ERR_CONNECTION_REFUSED');
    expect(within(result).getByRole('img', { name: 'Screenshot: failure' })).toHaveAttribute('src', 'data:image/png;base64,iVBORw0KGgo=');
  });

  it('shows the server\'s refusal (no agent connected) and sends nothing for a step that is wrong', async () => {
    const { u, api } = renderForm(null, {
      'POST /api/users/endpoints/browser-run': () => ({ success: false, error: 'No agent that can run browser checks is connected', status: 503 }),
    });
    await u.click(screen.getByRole('radio', { name: /Browser/ }));
    await u.type(screen.getByLabelText('URL'), 'https://app.example.com/');
    await addStep(u, 'click');
    await u.click(screen.getByRole('button', { name: 'Run now' }));
    expect(screen.getByTestId('run-error')).toHaveTextContent('Step 1 (click): selector is required');
    expect(api.calls).toHaveLength(0);
    await u.type(screen.getByLabelText('Step 1 selector'), '#go');
    await u.click(screen.getByRole('button', { name: 'Run now' }));
    expect(await screen.findByTestId('run-error')).toHaveTextContent('No agent that can run browser checks is connected');
  });
});
