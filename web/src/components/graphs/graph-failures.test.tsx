// A graph shows why checks failed: the last failure on the card and each point's reasons
// (its bucket: from its time up to the next point) in the tooltip.
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import type { GraphFailure } from '@upfleet/proto/rest';
import { GraphCard, failuresAt } from './GraphCard';

const failures: GraphFailure[] = [
  { t: 3_500, location: 'EU-Germany', reason: 'status_code 503, expected equals 200' },
  { t: 2_100, location: 'EU-Germany', reason: 'body does not contain "ok"' },
  { t: 2_000, location: 'EU-Germany', reason: 'body does not contain "ok"' },
];

describe('graph failures', () => {
  it('gives each point the distinct reasons of its bucket', () => {
    const data: Array<[number, number]> = [[1_000, 10], [2_000, 20], [3_000, 30]];
    expect(failuresAt(data, 0, failures)).toEqual([]);
    expect(failuresAt(data, 1, failures)).toEqual(['body does not contain "ok"']);
    expect(failuresAt(data, 2, failures)).toEqual(['status_code 503, expected equals 200']);
    expect(failuresAt(data, 9, failures)).toEqual([]);
  });

  it('shows the last failure with its reason on the card', () => {
    render(<GraphCard series={{ itemId: '1:response_time:EU-Germany', function: 'response_time', location: 'EU-Germany', data: [] }} view={{ from: 0, to: 10_000 }} onRange={() => undefined} failures={failures} />);
    expect(screen.getByTestId('last-failure')).toHaveTextContent('status_code 503, expected equals 200');
  });
});
