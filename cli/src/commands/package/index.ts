import { Command } from 'commander';
import { FEATURES } from '@upfleet/proto/rest';
import { commandContext, type CliDeps } from '../../context';
import { formatList, type Column } from '../../formatters/table';
import { formatDuration } from '../../lib/duration';
import type { Package, PriceSyncRow } from '../../api/types';

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

const SYNC_COLUMNS: Column<PriceSyncRow>[] = [
  { header: 'PACKAGE', value: (r) => r.package_name },
  { header: 'ACTION', value: (r) => r.action },
  { header: 'STRIPE PRICE', value: (r) => r.stripe_price_id },
  { header: 'LOOKUP KEY', value: (r) => r.lookup_key },
  { header: 'NOTE', value: (r) => r.note },
];

export function packageCommand(deps: CliDeps): Command {
  const pkg = new Command('package').description('Inspect packages (plans) and their Stripe prices');

  pkg
    .command('list')
    .description('List the packages with their limits and features')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const packages = await ctx.client.listPackages();
      ctx.print(packages, (rows) => formatList(PACKAGE_COLUMNS, rows, 'No packages.'));
    });

  pkg
    .command('set-price')
    .description("Store a plan's Stripe price id (checkout uses it; the pricing page shows the plan as buyable)")
    .requiredOption('--package <name>', 'package name as in `upfleet package list`, e.g. Pro')
    .requiredOption('--stripe-price <id>', 'the Stripe price id, e.g. price_123')
    .action(async (opts: { package: string; stripePrice: string }, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const updated = await ctx.client.setPackagePrice(opts.package, opts.stripePrice);
      ctx.print(updated, (p) => `${p.package_name} now uses Stripe price ${p.stripe_price_id}.\n`);
    });

  pkg
    .command('sync-stripe')
    .description('Create a Stripe Product and monthly Price for each paid plan without a price (safe to run twice)')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const rows = await ctx.client.syncStripePrices();
      ctx.print(rows, (r) => formatList(SYNC_COLUMNS, r, 'No packages.'));
    });

  return pkg;
}
