import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSessionMonitor } from './session-monitor';

const MIN = 60_000;

function make() {
  const events = { validate: 0, logout: 0, warnings: [] as Array<number | null> };
  const monitor = createSessionMonitor({
    validate: () => {
      events.validate += 1;
    },
    logout: () => {
      events.logout += 1;
    },
    onWarning: (s) => events.warnings.push(s),
  });
  return { monitor, events };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2025-01-01T00:00:00Z'));
});
afterEach(() => vi.useRealTimers());

describe('inactivity', () => {
  it('shows the warning at 25 minutes with a 300-second countdown', () => {
    const { monitor, events } = make();
    monitor.start();
    vi.advanceTimersByTime(25 * MIN - 1);
    expect(events.warnings).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events.warnings).toEqual([300]);
    vi.advanceTimersByTime(1000);
    expect(events.warnings.at(-1)).toBe(299);
  });

  it('logs out at 30 minutes without activity and hides the warning', () => {
    const { monitor, events } = make();
    monitor.start();
    vi.advanceTimersByTime(30 * MIN - 1);
    expect(events.logout).toBe(0);
    vi.advanceTimersByTime(1);
    expect(events.logout).toBe(1);
    expect(events.warnings.at(-1)).toBeNull();
    vi.advanceTimersByTime(60 * MIN);
    expect(events.logout).toBe(1);
  });

  it('activity restarts the 25/30-minute clock', () => {
    const { monitor, events } = make();
    monitor.start();
    vi.advanceTimersByTime(20 * MIN);
    monitor.activity();
    vi.advanceTimersByTime(20 * MIN);
    expect(events.warnings).toEqual([]);
    vi.advanceTimersByTime(5 * MIN);
    expect(events.warnings).toEqual([300]);
  });

  it('Stay Logged In hides the warning and resets the timers', () => {
    const { monitor, events } = make();
    monitor.start();
    vi.advanceTimersByTime(28 * MIN);
    monitor.stayLoggedIn();
    expect(events.warnings.at(-1)).toBeNull();
    vi.advanceTimersByTime(24 * MIN);
    expect(events.logout).toBe(0);
    vi.advanceTimersByTime(6 * MIN);
    expect(events.logout).toBe(1);
  });

  it('Logout Now logs out at once', () => {
    const { monitor, events } = make();
    monitor.start();
    vi.advanceTimersByTime(26 * MIN);
    monitor.logoutNow();
    expect(events.logout).toBe(1);
  });

  it('ordinary activity does not dismiss a warning that is showing', () => {
    const { monitor, events } = make();
    monitor.start();
    vi.advanceTimersByTime(25 * MIN);
    monitor.activity();
    vi.advanceTimersByTime(5 * MIN);
    expect(events.logout).toBe(1);
  });

  it('logs out when the tab becomes visible after the deadline passed while timers were frozen', () => {
    const { monitor, events } = make();
    monitor.start();
    vi.setSystemTime(Date.now() + 31 * MIN); // clock moves, timers did not fire (background tab)
    monitor.visible();
    expect(events.logout).toBe(1);
  });
});

describe('session re-check', () => {
  it('validates on activity at most once every 30 seconds', () => {
    const { monitor, events } = make();
    monitor.start();
    monitor.activity();
    expect(events.validate).toBe(0); // validated on load just now
    vi.advanceTimersByTime(29_999);
    monitor.activity();
    expect(events.validate).toBe(0);
    vi.advanceTimersByTime(1);
    monitor.activity();
    monitor.activity();
    expect(events.validate).toBe(1);
    vi.advanceTimersByTime(30_000);
    monitor.activity();
    expect(events.validate).toBe(2);
  });

  it('validates every time the tab becomes visible again', () => {
    const { monitor, events } = make();
    monitor.start();
    monitor.visible();
    monitor.visible();
    expect(events.validate).toBe(2);
  });

  it('does nothing once stopped', () => {
    const { monitor, events } = make();
    monitor.start();
    monitor.stop();
    vi.advanceTimersByTime(40 * MIN);
    monitor.activity();
    monitor.visible();
    expect(events).toEqual({ validate: 0, logout: 0, warnings: [] });
  });
});
