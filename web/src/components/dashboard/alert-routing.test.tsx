// The endpoint form's escalation policy and dependency: offered from the workspace's policies and
// endpoints, pre-filled when editing, sent as chosen; left out when the policies are not loaded.
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Endpoint, EscalationPolicy, Region } from '@upfleet/proto/rest';
import { EndpointFormModal, type PlanLimits } from './EndpointFormModal';
import { renderWith, scriptedApi, testServices } from '../../test-utils';

const regions: Region[] = [{ region_id: 1, region: 'EU', city: 'Germany', primary_region: true }];
const plan: PlanLimits = { package_name: 'Pro', max_regions: 1, ping_host: false, cert_expiry: false, response_code: true, response_time: false };
const policies: EscalationPolicy[] = [
  { escalation_policy_id: 4, name: 'Primary on call', steps: [{ wait_minutes: 0, alert_method_ids: [1] }], repeat: 0, repeat_every_minutes: 0, created_at: '2026-01-01T00:00:00.000Z' },
  { escalation_policy_id: 9, name: 'Business hours', steps: [{ wait_minutes: 5, alert_method_ids: [2] }], repeat: 0, repeat_every_minutes: 0, created_at: '2026-01-01T00:00:00.000Z' },
];
const others = [{ url_id: 1, name: 'Router' }, { url_id: 2, name: 'Shop' }];

function renderForm(ep: Endpoint | null, withPolicies = true) {
  const onSubmit = vi.fn(async () => true);
  renderWith(<EndpointFormModal endpoint={ep} regions={regions} plan={plan} policies={withPolicies ? policies : undefined} endpoints={others}
    onSubmit={onSubmit} onClose={() => undefined} />, testServices(scriptedApi({})));
  return { onSubmit, u: userEvent.setup() };
}

describe('escalation policy and dependency in the endpoint form', () => {
  it('offers the policies and the other endpoints, and sends the ones chosen', async () => {
    const { u, onSubmit } = renderForm(null);
    const policy = screen.getByLabelText('Escalation policy');
    expect(within(policy).getAllByRole('option').map((o) => o.textContent)).toEqual(['None: every enabled alert method at once', 'Primary on call', 'Business hours']);
    await u.type(screen.getByLabelText('Name'), 'API');
    await u.type(screen.getByLabelText('URL'), 'https://api.example.com');
    await u.selectOptions(policy, 'Business hours');
    await u.selectOptions(screen.getByLabelText('Depends on'), 'Router');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'API', escalation_policy_id: 9, depends_on: 1 }));
  });

  it('pre-fills an edited endpoint, never offers it as its own parent, and clears with None', async () => {
    const ep = { url_id: 2, name: 'Shop', url: 'https://shop.example.com', description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true,
      response_time: false, kind: 'http', escalation_policy_id: 4, depends_on: 1 } as unknown as Endpoint;
    const { u, onSubmit } = renderForm(ep);
    expect(screen.getByLabelText<HTMLSelectElement>('Escalation policy').value).toBe('4');
    const depends = screen.getByLabelText<HTMLSelectElement>('Depends on');
    expect(depends.value).toBe('1');
    expect(within(depends).getAllByRole('option').map((o) => o.textContent)).toEqual(['Nothing', 'Router']);
    await u.selectOptions(screen.getByLabelText('Escalation policy'), 'None: every enabled alert method at once');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ escalation_policy_id: null, depends_on: 1 }));
  });

  it('without the policies loaded, shows neither and sends neither (the server keeps them)', async () => {
    const { u, onSubmit } = renderForm(null, false);
    expect(screen.queryByLabelText('Escalation policy')).toBeNull();
    await u.type(screen.getByLabelText('Name'), 'API');
    await u.type(screen.getByLabelText('URL'), 'https://api.example.com');
    await u.click(screen.getByRole('button', { name: 'Add Endpoint' }));
    const body = (onSubmit.mock.calls as unknown as Array<[Record<string, unknown>]>)[0][0];
    expect(body).not.toHaveProperty('escalation_policy_id');
    expect(body).not.toHaveProperty('depends_on');
  });
});
