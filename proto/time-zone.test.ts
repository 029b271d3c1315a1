import { describe, expect, it } from 'vitest';
import { cronZone, fixedOffsetMinutes, fromZonedLocal, ianaZone, intlTimeZone, isTimeZone, timeZoneChoices, timeZoneOptions, toZonedLocal, zonedDate, zoneOffsetMinutes } from './time-zone';
import { nextDue } from './heartbeat';

const at = (iso: string) => Date.parse(iso);

describe('time zones', () => {
  it('follows daylight saving time in Berlin and New York, and knows Nepal, Adelaide and Kiritimati', () => {
    expect(zoneOffsetMinutes('Europe/Berlin', at('2026-01-15T12:00:00Z'))).toBe(60);
    expect(zoneOffsetMinutes('Europe/Berlin', at('2026-07-15T12:00:00Z'))).toBe(120);
    expect(zoneOffsetMinutes('America/New_York', at('2026-01-15T12:00:00Z'))).toBe(-300);
    expect(zoneOffsetMinutes('America/New_York', at('2026-07-15T12:00:00Z'))).toBe(-240);
    expect(zoneOffsetMinutes('Asia/Kathmandu', at('2026-07-15T12:00:00Z'))).toBe(345);
    expect(zoneOffsetMinutes('Australia/Adelaide', at('2026-01-15T12:00:00Z'))).toBe(630);
    expect(zoneOffsetMinutes('Pacific/Kiritimati', at('2026-01-15T12:00:00Z'))).toBe(840);
    for (const z of ['Asia/Kathmandu', 'Australia/Adelaide', 'Pacific/Kiritimati', 'Europe/Berlin', 'America/New_York']) {
      expect(timeZoneOptions()).toContain(z);
      expect(isTimeZone(z)).toBe(true);
    }
    expect(timeZoneOptions()[0]).toBe('UTC');
  });

  it("keeps 'UTC+2'-style values working as fixed offsets: whole hours as Etc/GMT zones, UTC+5:30 by its offset", () => {
    expect(ianaZone('UTC+2')).toBe('Etc/GMT-2');
    expect(ianaZone('UTC-5')).toBe('Etc/GMT+5');
    expect(ianaZone('UTC')).toBe('UTC');
    expect(ianaZone('UTC+5:30')).toBeNull();
    expect(fixedOffsetMinutes('UTC+5:30')).toBe(330);
    expect(zoneOffsetMinutes('UTC+2', at('2026-07-15T12:00:00Z'))).toBe(120);
    expect(zoneOffsetMinutes('UTC+2', at('2026-01-15T12:00:00Z'))).toBe(120);
    expect(zoneOffsetMinutes('UTC+5:30', at('2026-01-15T12:00:00Z'))).toBe(330);
    expect(intlTimeZone('UTC+5:30')).toEqual({ timeZone: 'UTC', shiftMs: 330 * 60_000 });
    expect(cronZone('UTC+5:30')).toEqual({ utcOffset: 330 });
    expect(cronZone('UTC-5')).toEqual({ timezone: 'Etc/GMT+5' });
    for (const bad of ['', 'Mars/Olympus', 'UTC+15', 'UTC+5:20', 'GMT+2', 'utc+2']) expect(isTimeZone(bad), bad).toBe(false);
    expect(timeZoneChoices('UTC+5:30')[0]).toBe('UTC+5:30');
    expect(timeZoneChoices('Europe/Berlin')).toBe(timeZoneOptions());
  });

  it('turns wall-clock times into instants and back, across a DST change', () => {
    expect(fromZonedLocal('2026-03-28T12:00', 'Europe/Berlin')).toBe(at('2026-03-28T11:00:00Z'));
    expect(fromZonedLocal('2026-03-30T12:00', 'Europe/Berlin')).toBe(at('2026-03-30T10:00:00Z'));
    expect(toZonedLocal(at('2026-03-30T10:00:00Z'), 'Europe/Berlin')).toBe('2026-03-30T12:00');
    expect(fromZonedLocal('2026-01-01T00:00', 'UTC+5:30')).toBe(at('2025-12-31T18:30:00Z'));
    expect(zonedDate(at('2026-07-15T23:30:00Z'), 'Europe/Berlin')).toBe('2026-07-16');
    expect(zonedDate(at('2026-01-15T23:30:00Z'), 'Europe/Berlin')).toBe('2026-01-16');
    expect(zonedDate(at('2026-01-15T23:30:00Z'), 'UTC')).toBe('2026-01-15');
  });

  it("runs a heartbeat's cron in its zone: a daily 09:00 in Berlin is 08:00 UTC in winter and 07:00 in summer; UTC+5:30 by its offset", () => {
    expect(nextDue({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, at('2026-01-15T00:00:00Z'))).toBe(at('2026-01-15T08:00:00Z'));
    expect(nextDue({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, at('2026-07-15T00:00:00Z'))).toBe(at('2026-07-15T07:00:00Z'));
    expect(nextDue({ cron: '0 9 * * *', timezone: 'UTC+2' }, at('2026-07-15T00:00:00Z'))).toBe(at('2026-07-15T07:00:00Z'));
    expect(nextDue({ cron: '0 9 * * *', timezone: 'UTC+5:30' }, at('2026-07-15T00:00:00Z'))).toBe(at('2026-07-15T03:30:00Z'));
  });
});
