import { Command } from 'commander';
import { commandContext, type CliDeps } from '../../context';
import { formatList, type Column } from '../../formatters/table';
import { formatRelative } from '../../formatters/time';
import type { AgentInfo } from '../../api/types';

/** The BROWSER column shows only when the control plane reports it (older ones do not). */
export function agentColumns(nowMs: number, rows: readonly AgentInfo[] = []): Column<AgentInfo>[] {
  const browser: Column<AgentInfo>[] = rows.some((a) => a.browser_checks !== undefined)
    ? [{ header: 'BROWSER', value: (a) => (a.browser_checks ? 'yes' : `no${a.browser_unavailable ? ` (${a.browser_unavailable})` : ''}`) }]
    : [];
  return [
    { header: 'AGENT', value: (a) => a.agent_id },
    { header: 'HOST', value: (a) => a.hostname },
    { header: 'REGION', value: (a) => a.region },
    { header: 'STATUS', value: (a) => a.status },
    { header: 'LAST HEARTBEAT', value: (a) => formatRelative(a.last_heartbeat_at, nowMs) },
    { header: 'CHECKS OWNED', value: (a) => a.checks_owned, align: 'right' },
    { header: 'CHECKS/MIN', value: (a) => round1(a.checks_per_minute), align: 'right' },
    { header: 'OUTBOX', value: (a) => a.outbox_depth, align: 'right' },
    { header: 'VERSION', value: (a) => (a.outdated ? `${a.version || 'unknown'} (older)` : a.version) },
    ...browser,
  ];
}

const round1 = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

export function agentListCommand(deps: CliDeps): Command {
  return new Command('list')
    .description('List agents: region, lease status, last heartbeat, load, outbox depth and whether they run browser checks')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const agents = await ctx.client.listAgents();
      ctx.print(agents, (rows) => formatList(agentColumns(ctx.now(), rows), rows, 'No agents have registered yet.'));
    });
}
