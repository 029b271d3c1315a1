import { Command } from 'commander';
import { commandContext, type CliDeps } from '../../context';
import { formatList, type Column } from '../../formatters/table';
import { formatDate } from '../../formatters/time';
import type { AdminUser } from '../../api/types';

const USER_COLUMNS: Column<AdminUser>[] = [
  { header: 'ID', value: (u) => u.id, align: 'right' },
  { header: 'USERNAME', value: (u) => u.username },
  { header: 'EMAIL', value: (u) => u.email },
  { header: 'PACKAGE', value: (u) => u.package_name },
  { header: 'ENDPOINTS', value: (u) => u.endpoints, align: 'right' },
  { header: '2FA', value: (u) => u.two_factor_enabled },
  { header: 'CREATED', value: (u) => formatDate(u.created_at) },
];
/** Shown when the server reports workspaces (servers with workspaces), before CREATED. */
const WORKSPACES_COLUMN: Column<AdminUser> = { header: 'WORKSPACES', value: (u) => u.workspaces ?? '' };
const columnsFor = (rows: AdminUser[]) =>
  rows.some((u) => u.workspaces !== undefined) ? [...USER_COLUMNS.slice(0, -1), WORKSPACES_COLUMN, USER_COLUMNS.at(-1)!] : USER_COLUMNS;

export function userCommand(deps: CliDeps): Command {
  const user = new Command('user').description('Manage user accounts');

  user
    .command('list')
    .description('List every user with their package and endpoint count')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const users = await ctx.client.listUsers();
      ctx.print(users, (rows) => formatList(columnsFor(rows), rows, 'No users.'));
    });

  user
    .command('set-package')
    .description("Move a user to another package (plan), e.g. after an offline payment")
    .requiredOption('--email <email>', "the user's email")
    .requiredOption('--package <name>', 'package name as in `upfleet package list`, e.g. Pro')
    .action(async (opts: { email: string; package: string }, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const changed = await ctx.client.setUserPackage(opts.email, opts.package);
      ctx.print(changed, (c) => `${c.email} is now on the ${c.package_name} package.\n`);
    });

  return user;
}
