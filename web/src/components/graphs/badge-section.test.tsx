// The graphs view's Badge section: editors see the badges and their Markdown and can rotate the
// URLs (after a confirmation); a member the server refuses sees no section.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { BadgeResource } from '@upfleet/proto/schemas';
import { fail, ok, renderWith, scriptedApi, testServices } from '../../test-utils';
import { BadgeSection } from './BadgeSection';

const badge = (t: string): BadgeResource => ({
  badge_token: t,
  status_url: `https://up.example.com/badge/${t}/status.svg`,
  uptime_urls: { '24h': `https://up.example.com/badge/${t}/uptime.svg?window=24h`, '7d': `https://up.example.com/badge/${t}/uptime.svg?window=7d`, '30d': `https://up.example.com/badge/${t}/uptime.svg?window=30d` },
  markdown: `![status](https://up.example.com/badge/${t}/status.svg) ![uptime 30d](https://up.example.com/badge/${t}/uptime.svg?window=30d)`,
});

afterEach(() => vi.restoreAllMocks());

describe('BadgeSection', () => {
  it('shows the badges and the Markdown, and rotates to new URLs after a confirmation', async () => {
    const api = scriptedApi({
      'GET /api/users/endpoints/7/badge': () => ok(badge('old')),
      'POST /api/users/endpoints/7/badge/rotate': () => ok(badge('new')),
    });
    renderWith(<BadgeSection urlId={7} />, testServices(api));
    const md = await screen.findByLabelText('Markdown');
    expect(md).toHaveValue(badge('old').markdown);
    expect(screen.getByAltText('status badge')).toHaveAttribute('src', 'https://up.example.com/badge/old/status.svg');
    expect(screen.getByAltText('uptime badge')).toHaveAttribute('src', 'https://up.example.com/badge/old/uptime.svg?window=30d');

    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    fireEvent.click(screen.getByRole('button', { name: 'Rotate badge URLs' }));
    expect(api.calls.filter((c) => c.method === 'POST')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Rotate badge URLs' }));
    await waitFor(() => expect(screen.getByLabelText('Markdown')).toHaveValue(badge('new').markdown));
    expect(confirm).toHaveBeenCalledTimes(2);
    expect(screen.getByRole('status')).toHaveTextContent('New badge URLs made: the old ones no longer work.');
  });

  it('is absent for a member the server refuses (viewer)', async () => {
    const api = scriptedApi({ 'GET /api/users/endpoints/7/badge': () => fail('Your role in this workspace does not allow this', 403) });
    renderWith(<BadgeSection urlId={7} />, testServices(api));
    await waitFor(() => expect(api.calls).toHaveLength(1));
    expect(screen.queryByRole('region', { name: 'Badge' })).toBeNull();
  });
});
