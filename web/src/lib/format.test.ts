import { afterEach, describe, expect, it } from 'vitest';
import {
  certBarPercent, certStatus, currencySymbol, displayZone, formatAxis, formatDate, formatDateTime, formatPrice, formatTime, regionKeyLabel, seriesStats, setDisplayZone, sinceLabel,
  statusCodeClass, subscriptionTone, successShare, TIMEZONES, uptimeBadge,
} from './format';

describe('display rules', () => {
  it('maps EUR, USD, GBP, JPY to their symbols and defaults to €', () => {
    expect(['EUR', 'USD', 'GBP', 'JPY'].map(currencySymbol)).toEqual(['€', '$', '£', '¥']);
    expect(currencySymbol(undefined)).toBe('€');
    expect(formatPrice(9.5, 'USD')).toBe('$9.50');
  });
  it('colours the 7-day uptime badge green from 99.5, yellow from 95, red below, two decimals', () => {
    expect(uptimeBadge(99.5)).toEqual({ text: '99.50%', tone: 'green' });
    expect(uptimeBadge(99.49)).toEqual({ text: '99.49%', tone: 'yellow' });
    expect(uptimeBadge(95)).toEqual({ text: '95.00%', tone: 'yellow' });
    expect(uptimeBadge(94.999)).toEqual({ text: '95.00%', tone: 'red' });
    expect(uptimeBadge(null)).toEqual({ text: '100.00%', tone: 'green' });
  });
  it('classes status codes', () => {
    expect(statusCodeClass(204)).toEqual({ label: 'Success', tone: 'green' });
    expect(statusCodeClass(301)).toEqual({ label: 'Redirect', tone: 'yellow' });
    expect(statusCodeClass(404)).toEqual({ label: 'Client Error', tone: 'orange' });
    expect(statusCodeClass(503)).toEqual({ label: 'Server Error', tone: 'red' });
  });
  it('gives the 2xx share with one decimal', () => {
    expect(successShare([200, 200, 500])).toBe('66.7');
  });
  it('rates certificate days Safe above 30, Warning above 7, else Critical, on a 365-day bar', () => {
    expect(certStatus(31).label).toBe('Safe');
    expect(certStatus(30).label).toBe('Warning');
    expect(certStatus(8).label).toBe('Warning');
    expect(certStatus(7).label).toBe('Critical');
    expect(certBarPercent(365)).toBe(100);
    expect(certBarPercent(500)).toBe(100);
    expect(certBarPercent(73)).toBeCloseTo(20);
  });
  it('rounds high, low and average to 2 decimals', () => {
    expect(seriesStats([1, 2, 2.3333])).toEqual({ high: '2.33', low: '1.00', avg: '1.78' });
    expect(seriesStats([])).toBeNull();
  });
  it('colours subscription status: active green, canceled red, past_due yellow, others grey', () => {
    expect(['active', 'canceled', 'past_due', 'incomplete', 'trialing'].map(subscriptionTone)).toEqual(['green', 'red', 'yellow', 'grey', 'grey']);
  });
  it("shows 'Not available' for empty and epoch dates", () => {
    expect(formatDate(null)).toBe('Not available');
    expect(formatDate('')).toBe('Not available');
    expect(formatDate('1970-01-01T00:00:00Z')).toBe('Not available');
    expect(formatDate(0)).toBe('Not available');
    expect(formatDate('2025-03-01T00:00:00Z')).toMatch(/2025/);
  });
  it('lists UTC and UTC-12..UTC+14 with UTC+5:30', () => {
    expect(TIMEZONES[0]).toBe('UTC-12');
    expect(TIMEZONES).toContain('UTC');
    expect(TIMEZONES).toContain('UTC+5:30');
    expect(TIMEZONES.at(-1)).toBe('UTC+14');
    expect(TIMEZONES).toHaveLength(28);
  });
  it("labels 'EU-Germany' as 'EU - Germany'", () => {
    expect(regionKeyLabel('EU-Germany')).toBe('EU - Germany');
  });
});

describe('the one date formatter', () => {
  const t = Date.parse('2026-07-15T12:05:09Z');
  afterEach(() => setDisplayZone(null));

  it("shows instants in the user's zone, DST included, with a 24-hour clock; 'UTC+5:30' by its offset", () => {
    expect(formatDateTime(t, 'Europe/Berlin')).toBe('15 Jul 2026, 14:05');
    expect(formatDateTime(Date.parse('2026-01-15T12:05:00Z'), 'Europe/Berlin')).toMatch(/13:05/);
    expect(formatDateTime(t, 'America/New_York')).toMatch(/08:05/);
    expect(formatDateTime(t, 'UTC+5:30')).toMatch(/17:35/);
    expect(formatTime(t, { zone: 'Asia/Kathmandu' })).toBe('17:50');
    expect(formatTime(t, { seconds: true, zone: 'UTC' })).toBe('12:05:09');
    expect(formatDateTime(null)).toBe('');
  });

  it('follows the zone the app sets from the profile, and labels axes by the range', () => {
    setDisplayZone('Asia/Kathmandu');
    expect(formatTime(t)).toBe('17:50');
    expect(sinceLabel('2026-07-15T12:05:09Z', t + 60_000)).toBe('since 17:50');
    // 18:30 UTC is already the next day in Kathmandu (00:15): an event at 18:00 UTC was yesterday there
    expect(sinceLabel('2026-07-14T18:00:00Z', Date.parse('2026-07-14T18:30:00Z'))).toBe('since 14 Jul 23:45');
    expect(sinceLabel('2026-07-14T18:00:00Z', Date.parse('2026-07-14T18:30:00Z'), 'UTC')).toBe('since 18:00');
    setDisplayZone('Mars/Olympus'); // unknown: the browser's zone, never a crash
    expect(displayZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(formatAxis(t, 3600_000, 'UTC')).toBe('12:05');
    expect(formatAxis(t, 7 * 86_400_000, 'UTC')).toBe('15 Jul');
  });
});
