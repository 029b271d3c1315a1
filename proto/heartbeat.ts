// A heartbeat's schedule, shared by the control plane (deadlines) and the web form (the
// cron's next five runs): a period after the last ping, or a five-field cron's next run in its IANA
// time zone (croner; DST handled by its zone arithmetic). Browser-safe: no Node imports.
import { Cron } from 'croner';
import { cronZone } from './time-zone';

export interface HeartbeatSchedule { period_seconds?: number; cron?: string; timezone?: string; grace_seconds?: number }

/** When the ping after one at `fromMs` is due: a period later, or the cron's next run after it. */
export function nextDue(s: HeartbeatSchedule, fromMs: number): number | null {
  if (s.period_seconds) return fromMs + s.period_seconds * 1000;
  if (!s.cron) return null;
  const next = new Cron(s.cron, { ...cronZone(s.timezone ?? 'UTC'), paused: true }).nextRun(new Date(fromMs));
  return next ? next.getTime() : null;
}

/** The next `count` run times of a cron in its time zone (the form's preview); null when it does not parse. */
export function nextRuns(cron: string, timezone: string, fromMs: number, count = 5): number[] | null {
  try {
    return new Cron(cron, { ...cronZone(timezone), paused: true }).nextRuns(count, new Date(fromMs)).map((d) => d.getTime());
  } catch {
    return null;
  }
}

/** Why croner cannot read a cron expression; null when it can. */
export function cronProblem(cron: string): string | null {
  try {
    new Cron(cron, { paused: true });
    return null;
  } catch (err) {
    return `cron does not parse: ${(err as Error).message}`;
  }
}
