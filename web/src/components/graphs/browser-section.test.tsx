// A browser endpoint's part of the graphs modal: the latest timings, the last failure (step,
// action, reason, console errors, failed requests) and its screenshot, loaded through the
// authorised client as a Blob and opened full size on a click.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import type { BrowserGraphs, ScreenshotInfo } from '@upfleet/proto/rest';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';
import { BrowserSection } from './BrowserSection';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
const svg = SVGElement.prototype as unknown as { getBBox?: () => DOMRect };
svg.getBBox ??= () => ({ x: 0, y: 0, width: 0, height: 0 }) as DOMRect;

const T = Date.UTC(2026, 10, 27, 12);
const shots: ScreenshotInfo[] = [
  { id: 'a'.repeat(32), result_id: 'run-2', name: 'failure', step: 2, mime: 'image/png', bytes: 68, taken_at: new Date(T).toISOString() },
  { id: 'b'.repeat(32), result_id: 'run-1', name: 'after login', step: 1, mime: 'image/png', bytes: 68, taken_at: new Date(T - 300_000).toISOString() },
];
const browser: BrowserGraphs = {
  timings: [
    { timing: 'ttfb', location: 'EU-Germany', data: [[T - 300_000, 40], [T, 42.5]] },
    { timing: 'lcp', location: 'EU-Germany', data: [[T, 410]] },
    { timing: 'total', location: 'EU-Germany', data: [[T, 1800]] },
  ],
  lastFailure: {
    t: T, location: 'EU-Germany', step: 2, action: 'click', reason: 'step 2 (click #buy): element not found',
    console_errors: ['TypeError: cart is undefined'], failed_requests: ['GET https://shop.example.com/app.js 404'], screenshot_ids: ['a'.repeat(32)],
  },
};

afterEach(() => vi.restoreAllMocks());

describe('BrowserSection', () => {
  it('shows the timings, the last failure with what the page said, and its screenshot full size on a click', async () => {
    const blobs: string[] = [];
    const api = Object.assign(scriptedApi({ 'GET /api/users/endpoints/7/screenshots': () => ok(shots) }), {
      blob: async (path: string) => {
        blobs.push(path);
        return new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
      },
    });
    // jsdom has no object URLs: counted here, real in the browser test
    let created = 0;
    Object.assign(URL, { createObjectURL: () => (created++, 'blob:http://localhost/shot'), revokeObjectURL: () => undefined });
    renderWith(<BrowserSection urlId={7} browser={browser} location="all" view={{ from: T - 3_600_000, to: T }} />, testServices(api));

    expect(screen.getByTestId('browser-latest')).toHaveTextContent('Latest: TTFB 42.5 ms · LCP 410 ms · Total 1800 ms');
    const failure = screen.getByTestId('browser-failure');
    expect(failure).toHaveTextContent('Step 2 (click): step 2 (click #buy): element not found');
    expect(within(screen.getByRole('list', { name: 'Console errors' })).getByText('TypeError: cart is undefined')).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Failed requests' })).getByText('GET https://shop.example.com/app.js 404')).toBeInTheDocument();

    // the failure's screenshot under the failure, the other one apart; each fetched as a Blob
    const thumb = await within(failure).findByRole('button', { name: /Open Screenshot "failure" at step 2/ }, { timeout: 5000 });
    expect(within(thumb).getByRole('img')).toHaveAttribute('src', 'blob:http://localhost/shot');
    expect(await screen.findByRole('button', { name: /Open Screenshot "after login" at step 1/ })).toBeInTheDocument();
    expect(blobs.sort()).toEqual([`/api/users/endpoints/7/screenshots/${'a'.repeat(32)}`, `/api/users/endpoints/7/screenshots/${'b'.repeat(32)}`]);
    expect(created).toBe(2);

    fireEvent.click(thumb);
    expect(await screen.findByTestId('screenshot-full')).toHaveAttribute('src', 'blob:http://localhost/shot');
  });

  it('says so when no run failed in the range, and shows only the chosen location', () => {
    const api = scriptedApi({ 'GET /api/users/endpoints/7/screenshots': () => ok([]) });
    renderWith(<BrowserSection urlId={7} browser={browser} location="US-Virginia" view={{ from: T - 3_600_000, to: T }} />, testServices(api));
    expect(screen.getByText('No failed run in this range.')).toBeInTheDocument();
    expect(screen.getByText('No browser runs in this range.')).toBeInTheDocument();
  });
});
