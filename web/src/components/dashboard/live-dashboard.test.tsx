// The live dashboard in jsdom against a scripted API: a result from the event stream turns a row
// red with its reason, a dropped stream says "Reconnecting…" and reconnects with Last-Event-ID,
// a large account pages from the server with the query from the URL, and the list rules.
import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { Dashboard, Endpoint } from '@upfleet/proto/rest';
import { DashboardPage, UPTIME_REFRESH_MS } from '../../pages/DashboardPage';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';
import { applyResult, filterAndSort, queryFromParams, type ResultEvent } from '../../lib/live-list';

const endpoint = (url_id: number, name: string, over: Partial<Endpoint> = {}): Endpoint => ({
  kind: 'http', url_id, guid: `g${url_id}`, name, url: `https://${name}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false,
  cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: 100, created_at: '',
  status: 'up', last_checked_at: new Date(Date.now() - 12_000).toISOString(), last_response_ms: 84, last_status_code: 200, last_error: null,
  recent: [{ at: Date.now() - 12_000, ok: true, ms: 84, code: 200 }], ...over,
});
const dashboard = (total: number): Dashboard => ({
  active_monitoring: total, total_endpoints: total, regions_count: 3, package_name: 'Business', max_regions: 10, max_endpoints: 100_000, multi_region: true,
  ping_host: true, cert_expiry: true, response_code: true, response_time: true, status_counts: { down: 0, degraded: 0, pending: 0, up: total, paused: 0 },
});

/** An event stream the test writes to and ends. */
function scriptedStream() {
  const opened: Array<Record<string, string>> = [];
  let push: (text: string) => void = () => undefined;
  let end: () => void = () => undefined;
  const stream = async (_path: string, headers: Record<string, string>) => {
    opened.push(headers);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        push = (text) => c.enqueue(new TextEncoder().encode(text));
        end = () => c.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { stream, opened, send: (id: number, type: string, data: unknown) => push(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`), end: () => end() };
}

const PAGE_URL = '/api/users/endpoints-with-uptime?q=site&status=up%2Cdown&sort=-name&limit=50&offset=';

describe('live dashboard', () => {
  it('shows each row\'s state, turns a row red from a result event, and says "Reconnecting…" when the stream drops', async () => {
    const live = scriptedStream();
    const api = Object.assign(scriptedApi({
      'GET /api/users/dashboard': () => ok(dashboard(2)),
      'GET /api/users/endpoints-with-uptime': () => ok([endpoint(1, 'shop'), endpoint(2, 'blog')]),
      'GET /api/public/regions': () => ok([]),
      'GET /api/users/incidents': () => ok([]),
    }), { stream: live.stream });
    renderWith(<DashboardPage />, testServices(api));
    const rows = await screen.findAllByTestId('endpoint-row');
    expect(within(rows[0]).getByTestId('status-word')).toHaveTextContent('Up');
    expect(within(rows[0]).getByTestId('last-ms')).toHaveTextContent('84 ms');
    expect(within(rows[0]).getByTestId('checked-ago')).toHaveTextContent(/^checked 1[2-4] s ago$/);
    expect(rows[0].querySelectorAll('.beat')).toHaveLength(30);
    expect(rows[0].querySelectorAll('.beat-up')).toHaveLength(1);
    await screen.findByText('Live');
    expect(screen.getByTestId('count-up')).toHaveTextContent('2 Up');

    const failed: ResultEvent = {
      url_id: 2, status: 'down', last_checked_at: new Date().toISOString(), last_response_ms: 31, last_status_code: 503,
      last_error: 'HTTP 503 from EU - Germany', recent: { at: Date.now(), ok: false, ms: 31, code: 503 },
    };
    await act(async () => live.send(41, 'result', failed));
    const blog = await screen.findByRole('listitem', { name: 'blog: Down' }, { timeout: 2000 });
    expect(blog).toHaveClass('is-down');
    expect(within(blog).getByTestId('last-error')).toHaveTextContent('HTTP 503 from EU - Germany');
    expect(blog.querySelector('.beat-down')?.getAttribute('title')).toMatch(/ · 503 · 31 ms$/);
    expect(screen.getByTestId('count-down')).toHaveTextContent('1 Down');

    await act(async () => live.end());
    await screen.findByText('Reconnecting…');
    await screen.findByText('Live', undefined, { timeout: 3000 });
    expect(live.opened.at(-1)).toEqual({ 'Last-Event-ID': '41' });
  }, 30_000);

  it("re-reads the uptime badge after a row changes state, not only when its incident resolves", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const live = scriptedStream();
      let uptime = 0;
      const api = Object.assign(scriptedApi({
        'GET /api/users/dashboard': () => ok(dashboard(1)),
        'GET /api/users/endpoints-with-uptime': () => ok([endpoint(1, 'shop', { status: uptime === 0 ? 'down' : 'up', uptime_percentage: uptime })]),
        'GET /api/public/regions': () => ok([]),
        'GET /api/users/incidents': () => ok([]),
      }), { stream: live.stream });
      renderWith(<DashboardPage />, testServices(api));
      const row = await screen.findByRole('listitem', { name: 'shop: Down' });
      expect(within(row).getByTitle('7-day uptime')).toHaveTextContent('0.00%');
      await screen.findByText('Live');
      const lists = () => api.calls.filter((c) => c.path.startsWith('/api/users/endpoints-with-uptime')).length;
      const before = lists();
      uptime = 40;
      await act(async () => live.send(1, 'result', {
        url_id: 1, status: 'up', last_checked_at: new Date().toISOString(), last_response_ms: 20, last_status_code: 200, last_error: null, recent: { at: Date.now(), ok: true, ms: 20, code: 200 },
      } satisfies ResultEvent));
      await screen.findByRole('listitem', { name: 'shop: Up' });
      expect(lists()).toBe(before);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(UPTIME_REFRESH_MS);
      });
      await waitFor(() => expect(within(screen.getByRole('listitem', { name: 'shop: Up' })).getByTitle('7-day uptime')).toHaveTextContent('40.00%'));
      expect(lists()).toBe(before + 1);
    } finally {
      vi.useRealTimers();
    }
  }, 30_000);

  it('pages a large account from the server with the search, filter and sort of the URL', async () => {
    const api = scriptedApi({
      'GET /api/users/dashboard': () => ok(dashboard(5000)),
      [`GET ${PAGE_URL}0`]: () => ({ ...ok(Array.from({ length: 50 }, (_, i) => endpoint(i + 1, `site${i + 1}`))), total: 120 }),
      [`GET ${PAGE_URL}50`]: () => ({ ...ok(Array.from({ length: 50 }, (_, i) => endpoint(i + 51, `site${i + 51}`))), total: 120 }),
      'GET /api/public/regions': () => ok([]),
      'GET /api/users/incidents': () => ok([]),
    });
    renderWith(<DashboardPage />, testServices(api), '/?q=site&status=up,down&sort=-name');
    expect(await screen.findAllByTestId('endpoint-row')).toHaveLength(50);
    expect(screen.getByTestId('list-count')).toHaveTextContent('120 of 5,000 endpoints');
    const lists = () => api.calls.filter((c) => c.path.startsWith('/api/users/endpoints-with-uptime')).map((c) => c.path);
    expect(lists()).toEqual([`${PAGE_URL}0`]);
    expect(screen.getByLabelText('Filter endpoints')).toHaveValue('site');
    expect(screen.getByLabelText('Sort')).toHaveValue('-name');
    fireEvent.click(screen.getByText('Show 50 more'));
    await screen.findByText('Showing 100 of 120', undefined, { timeout: 10_000 });
    expect(lists().at(-1)).toBe(`${PAGE_URL}50`);
  }, 30_000);
});

describe('list rules', () => {
  it('reads the query from the URL, ignoring unknown values', () => {
    expect(queryFromParams(new URLSearchParams('q=shop&status=down,sideways&sort=-name'))).toEqual({ q: 'shop', status: ['down'], sort: '-name' });
    expect(queryFromParams(new URLSearchParams('sort=colour'))).toEqual({ q: '', status: [], sort: 'status' });
  });

  it('filters and sorts down first, ties oldest first', () => {
    const list = [endpoint(1, 'a'), endpoint(2, 'b', { status: 'down' }), endpoint(3, 'c', { status: 'paused', monitoring_enabled: false }), endpoint(4, 'd', { status: 'down' })];
    expect(filterAndSort(list, { q: '', status: [], sort: 'status' }).map((e) => e.url_id)).toEqual([2, 4, 1, 3]);
    expect(filterAndSort(list, { q: 'D.EXAMPLE', status: [], sort: 'status' }).map((e) => e.url_id)).toEqual([4]);
    expect(filterAndSort(list, { q: '', status: ['up', 'paused'], sort: '-name' }).map((e) => e.url_id)).toEqual([3, 1]);
  });

  it('applies a result once, keeps 30 bars, and keeps a paused row paused', () => {
    const base = endpoint(1, 'a', { recent: Array.from({ length: 30 }, (_, i) => ({ at: i, ok: true, ms: 1, code: 200 })) });
    const r: ResultEvent = { url_id: 1, status: 'down', last_checked_at: 'x', last_response_ms: 5, last_status_code: 500, last_error: 'HTTP 500', recent: { at: 100, ok: false, ms: 5, code: 500 } };
    const after = applyResult(base, r);
    expect(after.recent).toHaveLength(30);
    expect(after.recent.at(-1)).toEqual(r.recent);
    expect(after.status).toBe('down');
    expect(applyResult(after, r)).toBe(after);
    expect(applyResult({ ...base, monitoring_enabled: false, status: 'paused' }, r).status).toBe('paused');
  });
});
