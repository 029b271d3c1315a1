import { describe, expect, it } from 'vitest';
import { certBarPercent, certStatus, currencySymbol, formatDate, formatPrice, regionKeyLabel, seriesStats, statusCodeClass, subscriptionTone, successShare, TIMEZONES, uptimeBadge } from './format';

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
