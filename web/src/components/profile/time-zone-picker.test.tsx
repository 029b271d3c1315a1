// The profile's zone picker offers IANA names (Nepal, Adelaide, Kiritimati, Berlin), keeps a stored
// 'UTC+2' selected, and saves the zone chosen.
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';
import { ProfileForm } from './ProfileForm';

describe('time zone picker', () => {
  it('offers the IANA zones, keeps a stored fixed offset, and saves Asia/Kathmandu', async () => {
    const api = scriptedApi({ 'PUT /api/users/profile': () => ok(null) });
    renderWith(<ProfileForm initial={{ username: 'alice', email: 'a@example.com', timezone: 'UTC+2' }} onSaved={() => undefined} />, testServices(api));
    const select = screen.getByLabelText<HTMLSelectElement>('Timezone');
    expect(select.value).toBe('UTC+2');
    const values = [...select.options].map((o) => o.value);
    for (const z of ['UTC', 'Asia/Kathmandu', 'Australia/Adelaide', 'Pacific/Kiritimati', 'Europe/Berlin', 'America/New_York']) expect(values).toContain(z);
    expect(values.filter((v) => v === 'UTC+2')).toHaveLength(1);
    const u = userEvent.setup();
    await u.selectOptions(select, 'Asia/Kathmandu');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Profile updated successfully!')).toBeInTheDocument();
    expect(api.calls[0].body).toEqual({ username: 'alice', email: 'a@example.com', timezone: 'Asia/Kathmandu' });
  });
});
