import { describe, expect, it } from 'vitest';
import { formatList, formatTable, type Column } from './table';
import { formatDate, formatRelative } from './time';

interface Row { name: string; count: number; live: boolean; note: string | null }
const columns: Column<Row>[] = [
  { header: 'NAME', value: (r) => r.name },
  { header: 'COUNT', value: (r) => r.count, align: 'right' },
  { header: 'LIVE', value: (r) => r.live },
  { header: 'NOTE', value: (r) => r.note },
];

describe('formatTable', () => {
  it('pads every column to its widest cell, right-aligns numbers and trims line ends', () => {
    const text = formatTable(columns, [
      { name: 'EU-Germany', count: 7, live: true, note: 'primary' },
      { name: 'US-Virginia', count: 1234, live: false, note: null },
    ]);
    expect(text).toBe(
      [
        'NAME         COUNT  LIVE  NOTE',
        'EU-Germany       7  yes   primary',
        'US-Virginia   1234  no    -',
        '',
      ].join('\n'),
    );
  });

  it('keeps a cell with a newline on one line so columns stay aligned', () => {
    const text = formatTable(columns, [{ name: 'a\nb', count: 1, live: true, note: 'x  y' }]);
    expect(text.split('\n')[1]).toBe('a b       1  yes   x y');
  });

  it('prints only the header for no rows, and formatList prints the empty sentence instead', () => {
    expect(formatTable(columns, [])).toBe('NAME  COUNT  LIVE  NOTE\n');
    expect(formatList(columns, [], 'No regions.')).toBe('No regions.\n');
  });
});

describe('formatRelative', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  it('says how long ago with the largest unit, and how far ahead for future times', () => {
    expect(formatRelative('2025-06-01T11:59:57Z', now)).toBe('3s ago');
    expect(formatRelative('2025-06-01T11:55:00Z', now)).toBe('5m ago');
    expect(formatRelative('2025-05-30T10:00:00Z', now)).toBe('2d ago');
    expect(formatRelative('2025-06-02T11:00:00Z', now)).toBe('in 23h');
    expect(formatRelative(now, now)).toBe('just now');
  });

  it("says 'never' when there is no time", () => {
    expect(formatRelative(null, now)).toBe('never');
  });

  it('formats absolute dates as UTC minutes', () => {
    expect(formatDate('2025-06-01T12:34:56.789Z')).toBe('2025-06-01 12:34');
    expect(formatDate(null)).toBe('-');
  });
});
