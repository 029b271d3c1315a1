// A response-code card shows codes as codes: checks per status class, the last code and the
// range's uptime, never a mean of codes; its zoom buttons zoom where the data is.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import type { GraphSeries } from '@upfleet/proto/rest';
import { GraphCard } from './GraphCard';
import { zoomAtData, type TimeRange } from './range-refetch';

// jsdom has no layout: apexcharts measures text (getBBox) and watches its size (ResizeObserver) on
// mount; the card's own text is what is checked here, the chart's drawing in the browser tests.
globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
const svg = SVGElement.prototype as unknown as { getBBox?: () => DOMRect };
svg.getBBox ??= () => ({ x: 0, y: 0, width: 0, height: 0 }) as DOMRect;

const HOUR = 3_600_000;
const classes = (c: Partial<Record<'2xx' | '3xx' | '4xx' | '5xx' | 'failed', number>>) => ({ '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, failed: 0, ...c });
const end = 24 * HOUR;
const series: GraphSeries = {
  itemId: '1:response_code:EU-Germany', function: 'response_code', location: 'EU-Germany',
  data: [[end - 30 * 60_000, 200], [end - 20 * 60_000, 0], [end - 10 * 60_000, 503]],
  codes: [
    { t: end - 30 * 60_000, checks: 5, passed: 5, classes: classes({ '2xx': 5 }) },
    { t: end - 20 * 60_000, checks: 5, passed: 4, classes: classes({ '2xx': 4, failed: 1 }) },
    { t: end - 10 * 60_000, checks: 10, passed: 8, classes: classes({ '2xx': 8, '3xx': 1, '5xx': 1 }) },
  ],
  lastCode: 200,
  uptime: 85,
};

describe('response-code card', () => {
  it('counts checks per status class, shows the last code and the uptime, and no high, low or average', () => {
    render(<GraphCard series={series} view={{ from: 0, to: end }} onRange={() => undefined} />);
    expect(['2xx', '3xx', '4xx', '5xx', 'failed'].map((c) => screen.getByTestId(`class-${c}`).textContent)).toEqual(['17', '1', '0', '1', '1']);
    expect(screen.getByTestId('last-code')).toHaveTextContent('200 Success');
    expect(screen.getByTestId('code-uptime')).toHaveTextContent('85.0% uptime');
    expect(screen.getByTestId('highest-code')).toHaveTextContent('Highest status: 503');
    expect(screen.queryByText('Average')).toBeNull();
    expect(screen.queryByText('Low')).toBeNull();
    // the history chips carry each bucket's worst code: the failures are visible
    expect(screen.getByLabelText('Last 10 checks').textContent).toBe('200—503');
  });

  it('zooms in around the data, not the middle of a day that is mostly empty', () => {
    const ranges: TimeRange[] = [];
    render(<GraphCard series={series} view={{ from: 0, to: end }} onRange={(r) => ranges.push(r)} />);
    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(ranges[0]).toEqual({ from: end - 12 * HOUR, to: end });
    for (const [t] of series.data) expect(t >= ranges[0].from && t <= ranges[0].to).toBe(true);
    // zooming further keeps the data in view
    const close = zoomAtData({ from: end - HOUR, to: end }, series.data.map((p) => p[0]), 0.5);
    expect(close).toEqual({ from: end - 35 * 60_000, to: end - 5 * 60_000 });
  });
});
