import { Command } from 'commander';
import { commandContext, type CliDeps } from '../../context';
import { formatList, type Column } from '../../formatters/table';
import type { AdminRegion } from '../../api/types';

/** Endpoints and agents name a region 'REGION-City' (e.g. 'EU-Germany'). */
export const regionName = (r: { region: string; city: string }) => `${r.region}-${r.city}`;

const REGION_COLUMNS: Column<AdminRegion>[] = [
  { header: 'ID', value: (r) => r.region_id, align: 'right' },
  { header: 'NAME', value: regionName },
  { header: 'REGION', value: (r) => r.region },
  { header: 'CITY', value: (r) => r.city },
  { header: 'PRIMARY', value: (r) => r.primary_region },
  { header: 'AGENTS LIVE', value: (r) => r.agents_live, align: 'right' },
];

export function regionCommand(deps: CliDeps): Command {
  const region = new Command('region').description('Manage monitoring regions');

  region
    .command('list')
    .description('List regions and how many agents are live in each')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const regions = await ctx.client.listRegions();
      ctx.print(regions, (rows) => formatList(REGION_COLUMNS, rows, 'No regions.'));
    });

  region
    .command('add')
    .description('Add a region; agents for it join with `upfleet agent token create --region REGION-City`')
    .requiredOption('--region <region>', 'region code, e.g. US')
    .requiredOption('--city <city>', 'city, e.g. Virginia')
    .option('--primary', 'make it the primary region (cert_expiry and response_code run only there)', false)
    .action(async (opts: { region: string; city: string; primary: boolean }, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const created = await ctx.client.addRegion({ region: opts.region, city: opts.city, primary: opts.primary });
      ctx.print(
        created,
        (r) =>
          `Added region ${regionName(r)} (id ${r.region_id}${r.primary_region ? ', primary' : ''}).\n` +
          `Next: upfleet agent token create --region ${regionName(r)}\n`,
      );
    });

  return region;
}
