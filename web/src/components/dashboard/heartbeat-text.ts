// What a heartbeat row and its setup say in words: the schedule ("every 1 h, grace 5 min"), the
// crontab line that follows it, and the row's note ("No ping since 11:20 (grace 1 min)") in the
// user's time zone. Only the list's fields are used, so live results keep the note current.
import { nextDue, type HeartbeatSchedule } from '@upfleet/proto/heartbeat';
import type { Endpoint } from '@upfleet/proto/rest';
import { clockLabel } from '../../lib/format';

/** '30 s', '5 min', '1 h', '1 h 30 min', '1 d'. */
export function spanLabel(seconds: number): string {
  if (seconds <= 0) return '0 s';
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return seconds > 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}

export const graceLabel = (s: HeartbeatSchedule): string => `grace ${spanLabel(s.grace_seconds ?? 0)}`;

/** 'every 1 h' or 'cron 30 2 * * * (Europe/Berlin)'. */
export function scheduleLabel(s: HeartbeatSchedule): string {
  if (s.cron) return `cron ${s.cron} (${s.timezone ?? 'UTC'})`;
  return s.period_seconds ? `every ${spanLabel(s.period_seconds)}` : '';
}

/** The crontab schedule that runs a job every period, when cron can say it; null otherwise. */
export function cronForPeriod(seconds: number | undefined): string | null {
  if (!seconds || seconds % 60 !== 0) return null;
  const min = seconds / 60;
  if (min < 60) return 60 % min === 0 ? (min === 1 ? '* * * * *' : `*/${min} * * * *`) : null;
  if (min % 60 !== 0) return null;
  const h = min / 60;
  if (h < 24) return 24 % h === 0 ? (h === 1 ? '0 * * * *' : `0 */${h} * * *`) : null;
  if (h === 24) return '0 0 * * *';
  if (h === 168) return '0 0 * * 0';
  return null;
}

export const curlLine = (pingUrl: string): string => `curl -fsS -m 10 --retry 5 ${pingUrl}`;

/** The crontab entry for the chosen schedule (a cron in another zone than UTC sets CRON_TZ); null when a period has no cron form. */
export function crontabLines(s: HeartbeatSchedule, pingUrl: string, job = '/usr/local/bin/backup.sh'): string | null {
  const cron = s.cron?.trim() || cronForPeriod(s.period_seconds);
  if (!cron) return null;
  const zone = s.cron && s.timezone && s.timezone !== 'UTC' ? `CRON_TZ=${s.timezone}\n` : '';
  return `${zone}${cron} ${job} && ${curlLine(pingUrl)}`;
}

/** '11:20' today, '23 Nov 11:20' before, in `zone`. */
export type HeartbeatNote = { kind: 'new' | 'late' | 'missed'; text: string };

/**
 * A monitored heartbeat's note: waiting for its first ping, late (past the expected time, within
 * the grace), or a missed ping. The last ping is the last success result while up; a miss names it
 * in its error (`missed: no ping since <ISO> …`).
 */
export function heartbeatNote(ep: Endpoint, now: number, zone: string | undefined): HeartbeatNote | null {
  if (ep.kind !== 'heartbeat' || !ep.monitoring_enabled || ep.status === 'maintenance') return null;
  if (ep.last_checked_at === null && ep.status !== 'down') return { kind: 'new', text: 'Waiting for the first ping' };
  const missed = ep.status === 'down' ? /no ping since (\S+)/.exec(ep.last_error ?? '') : null;
  if (missed) {
    const last = Date.parse(missed[1]);
    if (!Number.isNaN(last)) return { kind: 'missed', text: `No ping since ${clockLabel(last, now, zone)} (${graceLabel(ep)})` };
  }
  if (ep.status === 'up' && ep.last_checked_at) {
    const due = nextDue(ep, Date.parse(ep.last_checked_at));
    if (due !== null && now > due) return { kind: 'late', text: `Expected by ${clockLabel(due, now, zone)} (${graceLabel(ep)})` };
  }
  return null;
}
