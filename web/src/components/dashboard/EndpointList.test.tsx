// A large account's dashboard: the list draws a page of rows at a time and can be filtered.
import { describe, expect, it } from 'vitest';
import { useState } from 'react';
import { act, fireEvent, render, screen } from '@testing-library/react';
import type { Endpoint } from '@upfleet/proto/rest';
import { DashboardPage } from '../../pages/DashboardPage';
import { ok, renderWith, scriptedApi, testServices } from '../../test-utils';
import { EndpointList, PAGE } from './EndpointList';
import type { ListQuery } from '../../lib/live-list';

const endpoint = (url_id: number, name: string): Endpoint => ({
  kind: 'http', url_id, guid: `g${url_id}`, name, url: `https://${name}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false,
  cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: 100, created_at: '',
  status: 'up', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
});

function dashboardWith(list: Endpoint[]) {
  const api = scriptedApi({
    'GET /api/users/dashboard': () => ok({ active_monitoring: list.length, total_endpoints: list.length, regions_count: 3, package_name: 'Business', max_regions: 10, max_endpoints: 1000, multi_region: true, ping_host: true, cert_expiry: true, response_code: true, response_time: true }),
    'GET /api/users/endpoints-with-uptime': () => ok(list),
    'GET /api/public/regions': () => ok([]),
    'GET /api/users/incidents': () => ok([]),
  });
  renderWith(<DashboardPage />, testServices(api));
}

describe('dashboard list of a large account', () => {
  it(`draws ${PAGE} rows, then ${PAGE} more on "Show more", and filters by name or URL`, async () => {
    const list = Array.from({ length: 2 * PAGE + 20 }, (_, i) => endpoint(i + 1, `site${i + 1}`));
    dashboardWith(list);
    expect(await screen.findByTestId('list-count')).toHaveTextContent(`${2 * PAGE + 20} endpoints`);
    expect(screen.getAllByTestId('endpoint-row')).toHaveLength(PAGE);
    expect(screen.getByText(`Showing ${PAGE} of ${2 * PAGE + 20}`)).toBeInTheDocument();
    fireEvent.click(screen.getByText(`Show ${PAGE} more`)); // ByText and fireEvent: ByRole and userEvent walk every row in jsdom, slowly
    expect(screen.getAllByTestId('endpoint-row')).toHaveLength(2 * PAGE);
    fireEvent.click(screen.getByText('Show 20 more'));
    expect(screen.getAllByTestId('endpoint-row')).toHaveLength(2 * PAGE + 20);
    expect(screen.queryByText(/^Show \d+ more$/)).toBeNull();

    const filter = screen.getByLabelText('Filter endpoints');
    fireEvent.change(filter, { target: { value: 'SITE10' } });
    const names = screen.getAllByTestId('endpoint-row').map((r) => r.querySelector('h3')!.textContent);
    expect(names).toEqual(['site10', 'site100', 'site101', 'site102', 'site103', 'site104', 'site105', 'site106', 'site107', 'site108', 'site109']);
    expect(screen.getByTestId('list-count')).toHaveTextContent(`11 of ${2 * PAGE + 20} endpoints`);
    fireEvent.change(filter, { target: { value: 'nowhere.test' } });
    expect(screen.queryAllByTestId('endpoint-row')).toHaveLength(0);
    expect(screen.getByText('No endpoint matches “nowhere.test”.')).toBeInTheDocument();
  }, 60_000);

  it('gives a small account search and the status filter too, down endpoints first on a plain visit', async () => {
    dashboardWith([endpoint(1, 'shop'), { ...endpoint(2, 'blog'), status: 'down', last_error: 'HTTP 503' }]);
    expect(await screen.findAllByTestId('endpoint-row')).toHaveLength(2);
    expect(screen.getAllByTestId('endpoint-row').map((r) => r.querySelector('h3')!.textContent)).toEqual(['blog', 'shop']);
    expect(screen.getByLabelText('Filter endpoints')).toBeInTheDocument();
    expect(screen.getByLabelText('Status filter')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /more/ })).toBeNull();
  });

  it('has search and the status filter from the first endpoint', async () => {
    dashboardWith([endpoint(1, 'shop')]);
    expect(await screen.findAllByTestId('endpoint-row')).toHaveLength(1);
    expect(screen.getByLabelText('Filter endpoints')).toBeInTheDocument();
    expect(screen.getByLabelText('Status filter')).toBeInTheDocument();
    expect(screen.getByTestId('list-count')).toHaveTextContent('1 endpoint');
  });
});

describe('the search box while the URL catches up', () => {
  /** The page's URL as a router that answers a keystroke late: each onQuery waits in `queued`. */
  function LaggingUrl({ queued, external }: { queued: string[]; external: { set?: (q: string) => void } }) {
    const [q, setQ] = useState('');
    external.set = setQ;
    const query: ListQuery = { q, status: [], sort: 'status' };
    const noop = () => undefined;
    return (
      <EndpointList rows={[]} matching={0} all={20} more={0} onShowMore={noop} query={query} onQuery={(p) => queued.push(p.q ?? '')}
        openIncidents={new Map()} onEdit={noop} onThresholds={noop} onGraphs={noop} onToggle={noop} onDelete={noop} />
    );
  }

  it('keeps what was typed when the URL of an earlier keystroke arrives late, and follows a change from elsewhere', () => {
    const queued: string[] = [];
    const external: { set?: (q: string) => void } = {};
    render(<LaggingUrl queued={queued} external={external} />);
    const box = screen.getByLabelText('Filter endpoints');
    fireEvent.change(box, { target: { value: 'steady' } });
    fireEvent.change(box, { target: { value: 'steady ' } });
    act(() => external.set!(queued.shift()!)); // the URL says "steady" after the space was typed
    expect(box).toHaveValue('steady ');
    fireEvent.change(box, { target: { value: 'steady 0' } });
    act(() => external.set!(queued.shift()!));
    act(() => external.set!(queued.shift()!));
    expect(box).toHaveValue('steady 0');
    act(() => external.set!('blog')); // e.g. the back button
    expect(box).toHaveValue('blog');
  });
});
