import { describe, expect, it } from 'vitest';
import { CliError } from '../errors';
import { formatDuration, parseDuration } from './duration';

describe('parseDuration', () => {
  it('reads minutes, hours, days and weeks as seconds', () => {
    expect(parseDuration('30m')).toBe(1800);
    expect(parseDuration('24h')).toBe(86_400);
    expect(parseDuration('7d')).toBe(604_800);
    expect(parseDuration('2w')).toBe(1_209_600);
    expect(parseDuration('45s')).toBe(45);
  });

  it('adds up compound durations and ignores case and surrounding spaces', () => {
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration(' 1D12H ')).toBe(129_600);
  });

  it.each(['24', 'h', '5x', '1.5h', '-1h', '1h 30m', '', '0m'])('refuses %j with a usage error naming the value', (text) => {
    let error: unknown;
    try {
      parseDuration(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe('usage');
    expect((error as CliError).message).toContain(`Invalid duration '${text}'`);
  });
});

describe('formatDuration', () => {
  it('writes the short form parseDuration reads back', () => {
    for (const text of ['30m', '1d', '1h30m', '2d3h4m5s']) expect(formatDuration(parseDuration(text))).toBe(text);
    expect(formatDuration(300)).toBe('5m');
  });
});
