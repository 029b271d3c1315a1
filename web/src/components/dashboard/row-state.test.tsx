// One state per dashboard row: the status the server sends (checks, open incidents, maintenance,
// paused) sets the word and the colour; an incident only adds since when; monitoring is a switch.
import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import type { Endpoint, EndpointStatus, Incident } from '@upfleet/proto/rest';
import { EndpointList } from './EndpointList';

const endpoint = (url_id: number, name: string, status: EndpointStatus, monitoring_enabled = true): Endpoint => ({
  kind: 'http', url_id, guid: `g${url_id}`, name, url: `https://${name}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false,
  cert_expiry: false, response_code: true, response_time: false, monitoring_enabled, uptime_percentage: 99.9, created_at: '',
  status, last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
});
const incident = (url_id: number, condition: string): Incident => ({
  incident_id: url_id, url_id, condition, regions: [], cause: 'connection refused', flapping: false, opened_at: new Date().toISOString(), resolved_at: null,
  state: 'open', acknowledged_at: null, acknowledged_by: null, endpoint_name: null,
});

describe('dashboard row state', () => {
  it('colours and words a row by its status alone, shows the incident as since when, and monitoring as a switch', () => {
    const noop = () => undefined;
    const rows = [endpoint(1, 'shop', 'down'), endpoint(2, 'search', 'degraded'), endpoint(3, 'blog', 'paused', false)];
    render(
      <MemoryRouter>
        <EndpointList rows={rows} matching={3} all={3} more={0} onShowMore={noop} query={{ q: '', status: [], sort: 'status' }} onQuery={noop}
          openIncidents={new Map([[1, incident(1, 'down')], [2, incident(2, 'threshold:response_time:any')]])}
          onEdit={noop} onThresholds={noop} onGraphs={noop} onToggle={noop} onDelete={noop} />
      </MemoryRouter>,
    );
    const [shop, search, blog] = screen.getAllByTestId('endpoint-row');
    expect(shop).toHaveClass('is-down');
    expect(within(shop).getByTestId('status-word')).toHaveTextContent('Down');
    expect(within(shop).getByTestId('down-badge')).toHaveTextContent(/^Down since \d\d:\d\d$/);
    expect(within(shop).getByTestId('down-badge')).toHaveClass('badge-red');
    // the open incident's badge leads to it
    expect(within(shop).getByTestId('down-badge')).toHaveAttribute('href', '/incidents/1');
    // a threshold incident on a degraded row: yellow, never the red of a down row
    expect(search).toHaveClass('is-degraded');
    expect(search).not.toHaveClass('is-down');
    expect(within(search).getByTestId('status-word')).toHaveTextContent('Degraded');
    expect(within(search).getByTestId('down-badge')).toHaveClass('badge-yellow');
    // monitoring: a switch, on for the down row (no green check that reads as "up"), off for the paused one
    expect(within(shop).getByRole('switch', { name: 'Disable monitoring for shop' })).toHaveAttribute('aria-checked', 'true');
    expect(within(blog).getByRole('switch', { name: 'Enable monitoring for blog' })).toHaveAttribute('aria-checked', 'false');
    expect(within(blog).getByTestId('status-word')).toHaveTextContent('Paused');
    expect(document.querySelector('.monitor-icon')).toBeNull();
  });
});
