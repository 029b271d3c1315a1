// Pages show instants through the one formatter: in the profile's zone, one date-time style.
import { afterEach, describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { DeliveriesList } from '../components/alerts/DeliveriesList';
import { HeartbeatBars } from '../components/dashboard/LiveStatus';
import { IncidentHistory } from '../components/graphs/GraphsModal';
import { setDisplayZone } from './format';

const at = '2026-07-15T12:05:09.000Z';

describe('dates on pages', () => {
  afterEach(() => setDisplayZone(null));

  it("shows deliveries, incidents and check times in the user's zone (Kathmandu, UTC+5:45) in one style", () => {
    setDisplayZone('Asia/Kathmandu');
    render(
      <>
        <DeliveriesList deliveries={[{ delivery_id: 1, incident_id: 1, event: 'opened', status: 'delivered', attempts: 1, last_error: null, created_at: at, delivered_at: at, next_attempt_at: null }]} />
        <IncidentHistory now={Date.parse(at) + 60_000} incidents={[{ incident_id: 1, url_id: 1, condition: 'down', regions: [], cause: 'connection refused', flapping: false, opened_at: at, resolved_at: null, state: 'open', acknowledged_at: null, acknowledged_by: null, endpoint_name: null }]} />
        <HeartbeatBars recent={[{ at: Date.parse(at), ok: true, ms: 12, code: 200 }]} />
      </>,
    );
    expect(screen.getByRole('table')).toHaveTextContent('15 Jul 2026, 17:50');
    expect(screen.getByTestId('incident-row')).toHaveTextContent('15 Jul 2026, 17:50');
    expect(document.querySelector('.beat-up')).toHaveAttribute('title', '17:50:09 · 200 · 12 ms');
  });
});
