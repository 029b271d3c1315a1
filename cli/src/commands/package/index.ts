import { Command } from 'commander';
import { FEATURES } from '@upfleet/proto/rest';
import { commandContext, type CliDeps } from '../../context';
import { formatList, type Column } from '../../formatters/table';
import { formatDuration } from '../../lib/duration';
import type { Package } from '../../api/types';

const PACKAGE_COLUMNS: Column<Package>[] = [
  { header: 'ID', value: (p) => p.package_id, align: 'right' },
  { header: 'NAME', value: (p) => p.package_name },
  { header: 'PRICE', value: (p) => `${p.price.toFixed(2)} ${p.currency}`, align: 'right' },
  { header: 'ENDPOINTS', value: (p) => p.max_endpoints, align: 'right' },
  { header: 'REGIONS', value: (p) => p.max_regions, align: 'right' },
  { header: 'INTERVAL', value: (p) => formatDuration(p.check_frequency_seconds), align: 'right' },
  { header: 'RETENTION', value: (p) => `${p.retention_days}d`, align: 'right' },
  { header: 'FEATURES', value: (p) => FEATURES.filter((f) => p[f]).join(',') },
  { header: 'STRIPE PRICE', value: (p) => p.stripe_price_id },
];

export function packageCommand(deps: CliDeps): Command {
  const pkg = new Command('package').description('Inspect packages (plans)');

  pkg
    .command('list')
    .description('List the packages with their limits and features')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const packages = await ctx.client.listPackages();
      ctx.print(packages, (rows) => formatList(PACKAGE_COLUMNS, rows, 'No packages.'));
    });

  return pkg;
}
