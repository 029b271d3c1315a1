// `upfleet workspace list`: every workspace with its plan, members, endpoints and owner
// (admin token), and `upfleet workspace set-package <id> <package>` to move one's plan.
import { Command } from 'commander';
import { commandContext, type CliDeps } from '../../context';
import { CliError } from '../../errors';
import { formatList, type Column } from '../../formatters/table';
import { formatDate } from '../../formatters/time';
import type { AdminWorkspace } from '../../api/types';

const WORKSPACE_COLUMNS: Column<AdminWorkspace>[] = [
  { header: 'ID', value: (w) => w.id, align: 'right' },
  { header: 'NAME', value: (w) => w.name },
  { header: 'PERSONAL', value: (w) => w.personal },
  { header: 'PACKAGE', value: (w) => w.package_name },
  { header: 'MEMBERS', value: (w) => w.members, align: 'right' },
  { header: 'ENDPOINTS', value: (w) => w.endpoints, align: 'right' },
  { header: 'OWNER', value: (w) => w.owner_email ?? '' },
  { header: 'CREATED', value: (w) => formatDate(w.created_at) },
];

export function workspaceCommand(deps: CliDeps): Command {
  const workspace = new Command('workspace').description('Workspaces (teams): who owns what');
  workspace
    .command('list')
    .description('List every workspace with its package, members, endpoints and owner')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const rows = await ctx.client.listWorkspaces();
      ctx.print(rows, (r) => formatList(WORKSPACE_COLUMNS, r, 'No workspaces.'));
    });
  workspace
    .command('set-package')
    .description("Move a workspace to another package (plan) by its id, e.g. to let a team invite more members")
    .argument('<id>', 'workspace id as in `upfleet workspace list`')
    .argument('<package>', 'package name as in `upfleet package list`, e.g. Starter')
    .action(async (id: string, pkg: string, _opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      if (!/^[1-9]\d*$/.test(id.trim())) throw new CliError('usage', `The workspace id must be a number as in 'upfleet workspace list' (got '${id}')`);
      const changed = await ctx.client.setWorkspacePackage(Number(id.trim()), pkg);
      ctx.print(changed, (c) => `Workspace ${c.id} (${c.name}) is now on the ${c.package_name} package.\n`);
    });
  return workspace;
}
