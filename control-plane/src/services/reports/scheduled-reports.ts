// Monthly SLA reports by mail: a workspace's admins choose the recipients; on the 1st of each month
// (in the workspace owner's zone) last month's report is queued in the durable mail outbox (the
// status pages' status_mail_outbox and its sender), once per workspace and month: report_runs'
// key says it was queued, in the same transaction as the mails, so a restart never sends it twice.
import type { Kysely } from 'kysely';
import type { ReportSchedule, SlaReport } from '@upfleet/proto/rest';
import type { ReportScheduleBody } from '@upfleet/proto/schemas';
import { regionKeyLabel } from '@upfleet/proto/regions';
import { fromZonedLocal, zonedDate } from '@upfleet/proto/time-zone';
import type { Logger } from '../../logger';
import type { Schema } from '../../store/sql/schema';
import type { NewMail } from '../../store/status-mail-repo';
import type { SlaReportService } from './sla-report';
import type { SloService } from './slo';

const DAY_MS = 86_400_000;

/** The start of the month `ms` falls in, in `zone`, and that month's label ('2026-11'). */
function monthOf(ms: number, zone: string): { start: number; month: string } {
  const month = zonedDate(ms, zone).slice(0, 7);
  return { start: fromZonedLocal(`${month}-01T00:00`, zone), month };
}
const nextMonthStart = (ms: number, zone: string) => {
  const { start } = monthOf(ms, zone);
  return monthOf(start + 32 * DAY_MS, zone).start;
};

/** The report as a plain-text mail body. */
export function reportMailText(workspace: string, month: string, r: SlaReport): string {
  const pct = (v: number | null) => (v === null ? 'no data' : `${v.toFixed(2)} %`);
  const min = (v: number | null) => (v === null ? '-' : `${v} min`);
  const lines = [
    `SLA report for ${workspace}, ${month} (${r.timezone})`,
    '',
    ...r.rows.map((row) => `${row.name}${row.region ? ` (${regionKeyLabel(row.region)})` : ''}: uptime ${pct(row.uptime_percentage)}, downtime ${min(row.downtime_minutes)}, `
      + `${row.incidents} incident${row.incidents === 1 ? '' : 's'}, longest outage ${min(row.longest_outage_minutes)}, MTTR ${min(row.mttr_minutes)}, MTTA ${min(row.mtta_minutes)}`),
    '',
    `Total: uptime ${pct(r.totals.uptime_percentage)}, downtime ${min(r.totals.downtime_minutes)}, ${r.totals.incidents} incidents`,
    ...(r.maintenance.length > 0 ? ['', 'Maintenance left out:', ...r.maintenance.map((w) => `- ${w.title}: ${w.starts_at} – ${w.ends_at}`)] : []),
    '',
    'Uptime counts checks outside maintenance windows; a period without results is "no data".',
  ];
  return `${lines.join('\n')}\n`;
}

/** The workspace owner (whose zone the month is cut in) and the workspace's name. */
export interface WorkspaceOwner { memberId: number; timezone: string; name: string }

export function createScheduledReports(deps: {
  sql: Kysely<Schema>;
  /** Marks the month sent and queues its mails in one transaction; false when the month was already sent. */
  queueMonth: (workspaceId: number, month: string, mails: NewMail[], at: number) => Promise<boolean>;
  /** The outbox has new mail: send now rather than at the next poll. */
  mailQueued: () => void;
  sla: Pick<SlaReportService, 'report'>;
  /** The workspace owner (whose zone the month is cut in) and the workspace's name. */
  owner: (workspaceId: number) => WorkspaceOwner | Promise<WorkspaceOwner>;
  logger: Logger;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'scheduled-reports' });
  const db = deps.sql;

  async function get(workspaceId: number): Promise<ReportSchedule> {
    const row = await db.selectFrom('report_schedules').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
    const { timezone } = await deps.owner(workspaceId);
    const enabled = row?.enabled === 1;
    return { enabled, recipients: row ? (JSON.parse(row.recipients) as string[]) : [], timezone, next_send_at: enabled ? new Date(nextMonthStart(now(), timezone)).toISOString() : null };
  }

  /** Queues last month's report of one workspace when it is due and not yet sent; true when queued. */
  async function runOne(workspaceId: number, recipients: string[], enabledAt: number, t: number): Promise<boolean> {
    const owner = await deps.owner(workspaceId);
    const current = monthOf(t, owner.timezone);
    // Switched on during this month: the first report is this month's, next month.
    if (enabledAt >= current.start) return false;
    const last = monthOf(current.start - DAY_MS, owner.timezone);
    const done = await db.selectFrom('report_runs').select('month').where('workspace_id', '=', workspaceId).where('month', '=', last.month).executeTakeFirst();
    if (done) return false;
    const lastDay = zonedDate(current.start - 1, owner.timezone);
    const report = await deps.sla.report({ userId: workspaceId, memberId: owner.memberId }, { from: `${last.month}-01`, to: lastDay, group_by: 'endpoint', format: 'json' });
    const body = reportMailText(owner.name, last.month, report);
    const mails = recipients.map((to) => ({
      pageId: null, to, subject: `[Upfleet] SLA report ${last.month}: ${owner.name}`, body, unsubscribeUrl: null, key: `sla-report-${workspaceId}-${last.month}-${to}`,
    }));
    return deps.queueMonth(workspaceId, last.month, mails, t);
  }

  return {
    get,
    async put(workspaceId: number, body: ReportScheduleBody): Promise<ReportSchedule> {
      const t = now();
      const before = await db.selectFrom('report_schedules').select(['enabled', 'enabled_at']).where('workspace_id', '=', workspaceId).executeTakeFirst();
      // Switching on starts the count again; staying on keeps when it was first switched on.
      const enabledAt = body.enabled ? (before?.enabled === 1 ? before.enabled_at : t) : null;
      const values = { enabled: body.enabled ? 1 : 0, recipients: JSON.stringify(body.recipients), enabled_at: enabledAt, updated_at: t };
      await db.insertInto('report_schedules').values({ workspace_id: workspaceId, ...values })
        .onConflict((oc) => oc.column('workspace_id').doUpdateSet(values)).execute();
      return get(workspaceId);
    },
    /** Queues every due report (the timer runs this; tests with a fake clock call it). Answers how many were queued. */
    async tick(): Promise<number> {
      const t = now();
      const rows = await db.selectFrom('report_schedules').selectAll().where('enabled', '=', 1).execute();
      let queued = 0;
      for (const r of rows) {
        try {
          if (await runOne(r.workspace_id, JSON.parse(r.recipients) as string[], r.enabled_at ?? 0, t)) queued++;
        } catch (err) {
          // the next tick tries again: nothing was marked sent
          log.warn({ workspaceId: r.workspace_id, err: (err as Error).message }, 'monthly report not queued');
        }
      }
      if (queued > 0) deps.mailQueued();
      return queued;
    },
  };
}
export type ScheduledReports = ReturnType<typeof createScheduledReports>;

/** What the report routes act on: SLOs, the SLA report and the monthly schedule. */
export interface Reports {
  slo: SloService;
  slaReport: SlaReportService;
  schedule: ScheduledReports;
}
