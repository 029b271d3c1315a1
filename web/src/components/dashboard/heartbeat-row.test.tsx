// A heartbeat's dashboard row: its schedule instead of a heartbeat:// link, no uptime before the
// first ping, "Late" past the expected time, and a missed ping in the user's time zone.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import type { Endpoint } from '@upfleet/proto/rest';
import { EndpointList } from './EndpointList';
import { crontabLines, cronForPeriod } from './heartbeat-text';

const NOW = Date.parse('2026-11-27T10:30:00Z');
const beat = (url_id: number, name: string, live: Partial<Endpoint>): Endpoint => ({
  url_id, guid: `g${url_id}`, name, url: `heartbeat://${url_id}-uuid`, description: '', regions: ['EU-Germany'], ping_host: false,
  cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, uptime_percentage: null, created_at: '',
  kind: 'heartbeat', period_seconds: 300, grace_seconds: 60,
  status: 'pending', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [], ...live,
});
const noop = () => undefined;
const row = (name: string) => screen.getByRole('listitem', { name: new RegExp(`^${name}:`) });

describe('heartbeat rows', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('show the schedule, no link and no uptime before the first ping, Late past the expected time, and a missed ping in the user zone', () => {
    const rows = [
      beat(1, 'Fresh', {}),
      beat(2, 'Slow', { status: 'up', last_checked_at: new Date(NOW - 330_000).toISOString(), uptime_percentage: 100 }),
      beat(3, 'Gone', {
        status: 'down', last_checked_at: new Date(NOW - 60_000).toISOString(), uptime_percentage: 80,
        last_error: 'missed: no ping since 2026-11-27T10:20:00.000Z (expected by 2026-11-27T10:25:00.000Z)',
      }),
    ];
    render(<EndpointList rows={rows} matching={3} all={3} more={0} onShowMore={noop} query={{ q: '', status: [], sort: 'status' }} onQuery={noop}
      openIncidents={new Map()} onGraphs={noop} timeZone="Europe/Berlin" />);

    const fresh = row('Fresh');
    expect(fresh.querySelector('a[href^="heartbeat:"]')).toBeNull();
    expect(fresh).not.toHaveTextContent('heartbeat://');
    expect(within(fresh).getByTestId('heartbeat-schedule')).toHaveTextContent('Heartbeat, every 5 min, grace 1 min');
    expect(fresh).not.toHaveTextContent('%');
    expect(within(fresh).getByTestId('heartbeat-note')).toHaveTextContent('Waiting for the first ping');

    const slow = row('Slow');
    expect(within(slow).getByTestId('late-badge')).toHaveTextContent('Late');
    expect(within(slow).getByTestId('heartbeat-note')).toHaveTextContent('Expected by 11:29 (grace 1 min)');

    const gone = row('Gone');
    expect(within(gone).getByTestId('heartbeat-note')).toHaveTextContent('No ping since 11:20 (grace 1 min)');
    expect(gone).not.toHaveTextContent('missed:');
    expect(within(gone).queryByTestId('late-badge')).toBeNull();
  });
});

describe('heartbeat setup lines', () => {
  it('follow the chosen period or cron', () => {
    const url = 'https://up.example/ping/t';
    expect(cronForPeriod(300)).toBe('*/5 * * * *');
    expect(cronForPeriod(3600)).toBe('0 * * * *');
    expect(cronForPeriod(86_400)).toBe('0 0 * * *');
    expect(cronForPeriod(7 * 60)).toBeNull();
    expect(crontabLines({ period_seconds: 300 }, url)).toBe(`*/5 * * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${url}`);
    expect(crontabLines({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, url)).toBe(`CRON_TZ=Europe/Berlin\n30 2 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${url}`);
    expect(crontabLines({ cron: '15 * * * *', timezone: 'UTC' }, url)).toBe(`15 * * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${url}`);
  });
});
