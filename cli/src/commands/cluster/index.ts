import { Command } from 'commander';
import { commandContext, type CliDeps } from '../../context';
import { formatClusterStatus } from '../../formatters/cluster';

export function clusterCommand(deps: CliDeps): Command {
  const cluster = new Command('cluster').description('The control-plane processes (admin token)');
  cluster
    .command('status')
    .description('List control-plane processes, their versions and last sign of life, and which one holds the leader lease since when')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const status = await ctx.client.clusterStatus();
      ctx.print(status, (s) => formatClusterStatus(s, ctx.now()));
    });
  return cluster;
}
