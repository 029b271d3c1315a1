// `upfleet monitors export | apply`: monitoring as code for users, through the public API with an
// API key (--api-key or UPFLEET_API_KEY). Endpoints are matched by name; see state.ts for the rules.
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { AlertThreshold, MonitorType, Region } from '@upfleet/proto/rest';
import type { AlertThresholdItem } from '@upfleet/proto/schemas';
import { endpointKindSpec } from '@upfleet/proto/check-kinds';
import type { EndpointFields, UserClient } from '../../api/user-client';
import type { CliDeps } from '../../context';
import { apiKeyCommand, userContext } from '../api-key-context';
import { CliError } from '../../errors';
import { formatList, type Column } from '../../formatters/table';
import { checkPlanLimits, currentMonitors, planChanges, readMonitorsFile, summarize, toYaml, type Change, type Monitor } from './state';

async function fetchCurrent(client: UserClient) {
  const [endpoints, regions] = await Promise.all([client.listEndpoints(), client.regions()]);
  const thresholds = new Map<number, AlertThreshold[]>();
  for (const e of endpoints) thresholds.set(e.url_id, await client.thresholds(e.url_id));
  return { current: currentMonitors(endpoints, thresholds, regions), regions };
}

function thresholdItems(m: Monitor, types: MonitorType[], regions: Region[]): AlertThresholdItem[] {
  return m.alert_thresholds.map((t) => ({
    monitor_type_id: types.find((x) => x.type_code === t.type)!.monitor_type_id,
    threshold_value: t.value,
    threshold_operator: t.operator,
    is_enabled: t.enabled,
    region_id: t.region === null ? null : regions.find((r) => `${r.region}-${r.city}` === t.region)!.region_id,
  }));
}

/** The fields saved with the endpoint itself (PUT /api/users/endpoints/:id). */
const ENDPOINT_FIELDS = ['url', 'description', 'regions', 'features', 'check', 'check_frequency_seconds', 'escalation_policy_id', 'depends_on', 'slo'];

// The check came from the file through the same schema (and is parsed again when sent): cast to the body type.
const endpointFields = (m: Monitor): EndpointFields => ({
  name: m.name, description: m.description, regions: m.regions,
  ...(m.check_frequency_seconds ? { check_frequency_seconds: m.check_frequency_seconds } : {}),
  ...(m.escalation_policy_id !== undefined ? { escalation_policy_id: m.escalation_policy_id } : {}),
  ...(m.depends_on !== undefined ? { depends_on: m.depends_on } : {}),
  // the file says what the endpoint has: no target there is none
  slo_target: m.slo_target ?? null, slo_window_days: m.slo_window_days ?? 30,
  // an http endpoint by its URL (and options), the other kinds by their target
  ...(endpointKindSpec(m.check?.kind ?? 'http').target.field === 'url' ? { url: m.url } : {}),
  ...(m.check ?? {}),
  ping_host: m.features.includes('ping_host'), cert_expiry: m.features.includes('cert_expiry'),
  response_code: m.features.includes('response_code'), response_time: m.features.includes('response_time'),
});

/** Carries out one change; a refusal names the monitor. */
async function applyChange(client: UserClient, c: Change, types: MonitorType[], regions: Region[]): Promise<void> {
  const m = c.monitor;
  try {
    if (c.action === 'delete') await client.deleteEndpoint(c.url_id!);
    else if (c.action === 'create' && m) {
      const saved = await client.createEndpoint(endpointFields(m));
      if (!m.monitoring) await client.setMonitoring(saved.url_id, false);
      if (m.alert_thresholds.length) await client.saveThresholds(saved.url_id, thresholdItems(m, types, regions));
    } else if (c.action === 'update' && m) {
      const id = c.url_id!;
      if (c.fields.some((f) => ENDPOINT_FIELDS.includes(f))) await client.updateEndpoint(id, endpointFields(m));
      if (c.fields.includes('monitoring')) await client.setMonitoring(id, m.monitoring);
      if (c.fields.includes('alert_thresholds')) await client.saveThresholds(id, thresholdItems(m, types, regions));
    }
  } catch (err) {
    if (err instanceof CliError) throw new CliError(err.code, `monitor "${c.name}": ${err.message}`, err.status);
    throw err;
  }
}

/** Touches the endpoint itself (not only monitoring or thresholds): the server's dry run checks it. */
const savesEndpoint = (c: Change) => c.action === 'create' || (c.action === 'update' && c.fields.some((f) => ['url', 'description', 'regions', 'features', 'check_frequency_seconds', 'escalation_policy_id', 'depends_on', 'slo'].includes(f)));

/**
 * The whole file checked by the server before anything is applied (a dry run of every create and
 * update: plan features and regions, private targets, URLs already monitored), so a file the server
 * refuses in part changes nothing. A URL held by an endpoint this apply deletes or moves is free by
 * the time the create runs (deletes and updates go first).
 */
async function checkWithServer(file: string, client: UserClient, changes: Change[], current: Array<Monitor & { url_id: number }>): Promise<void> {
  const freed = new Set<string>();
  for (const c of changes) {
    const old = current.find((x) => x.url_id === c.url_id);
    if (old && (c.action === 'delete' || (c.action === 'update' && c.monitor && c.monitor.url !== old.url))) freed.add(old.url);
  }
  const problems: string[] = [];
  for (const c of changes.filter(savesEndpoint)) {
    try {
      await client.checkEndpoint(endpointFields(c.monitor!), c.action === 'update' ? c.url_id! : undefined);
    } catch (err) {
      if (!(err instanceof CliError) || err.code === 'unreachable' || err.code === 'server' || err.code === 'unauthorized') throw err;
      if (err.status === 409 && c.action === 'create' && freed.has(c.monitor!.url)) continue;
      problems.push(`monitor "${c.name}": ${err.message}`);
    }
  }
  if (problems.length) throw new CliError('invalid', `${file}: ${problems.join('; ')} (nothing was changed)`);
}

const CHANGE_COLUMNS: Column<Change>[] = [
  { header: 'ACTION', value: (c) => c.action },
  { header: 'NAME', value: (c) => c.name },
  { header: 'CHANGES', value: (c) => c.fields.join(', ') },
];

function summaryLine(changes: Change[], dryRun: boolean): string {
  const s = summarize(changes);
  const verb = dryRun ? 'Would create' : 'Created';
  return `${verb} ${s.create}, ${dryRun ? 'update' : 'updated'} ${s.update}, ${dryRun ? 'delete' : 'deleted'} ${s.delete}; ${s.unchanged} unchanged.${dryRun ? ' Dry run: nothing was changed.' : ''}\n`;
}

export function monitorsCommand(deps: CliDeps): Command {
  const monitors = apiKeyCommand('monitors', "Monitoring as code: export the account's endpoints to YAML, or make the account match a file (API key)");

  monitors
    .command('export')
    .description('Write the endpoints (name, url, description, regions, features, monitoring, alert thresholds) as YAML')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (opts: { output?: string }, cmd: Command) => {
      const { globals, client } = userContext(cmd, deps);
      const { current } = await fetchCurrent(client);
      const list: Monitor[] = current.map(({ url_id: _id, ...m }) => m);
      if (globals.json) {
        deps.stdout(`${JSON.stringify({ monitors: list }, null, 2)}\n`);
        return;
      }
      const yaml = toYaml(list, `# upfleet monitors: ${list.length} endpoint(s) from ${globals.server}\n# Apply with: upfleet monitors apply -f <this file> [--dry-run] [--prune]\n`);
      if (opts.output) {
        fs.writeFileSync(path.resolve(deps.cwd, opts.output), yaml);
        deps.stdout(`Wrote ${list.length} monitor(s) to ${opts.output}\n`);
      } else deps.stdout(yaml);
    });

  monitors
    .command('apply')
    .description('Make the account match the file, matching endpoints by name: create, update, and with --prune delete')
    .requiredOption('-f, --file <file>', 'the monitors file (YAML)')
    .option('--dry-run', 'print the plan and change nothing')
    .option('--prune', 'delete endpoints the file does not list')
    .action(async (opts: { file: string; dryRun?: boolean; prune?: boolean }, cmd: Command) => {
      const { globals, client } = userContext(cmd, deps);
      let text: string;
      try {
        text = fs.readFileSync(path.resolve(deps.cwd, opts.file), 'utf8');
      } catch (err) {
        throw new CliError('usage', `Cannot read ${opts.file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
      }
      const [{ current, regions }, plan, types] = await Promise.all([fetchCurrent(client), client.dashboard(), client.monitorTypes()]);
      const wanted = readMonitorsFile(opts.file, text, regions);
      const changes = planChanges(opts.file, wanted, current, opts.prune === true);
      checkPlanLimits(opts.file, changes, current.length, plan, regions);
      await checkWithServer(opts.file, client, changes, current);

      const dryRun = opts.dryRun === true;
      if (!dryRun) {
        // Deletes first (they free room under the plan's endpoint limit), then updates, then creates.
        for (const action of ['delete', 'update', 'create'] as const) {
          for (const c of changes.filter((x) => x.action === action)) await applyChange(client, c, types, regions);
        }
      }
      const kept = opts.prune ? 0 : current.filter((c) => !wanted.some((w) => w.name.toLowerCase() === c.name.toLowerCase())).length;
      if (globals.json) {
        const out = changes.map(({ monitor: _m, ...c }) => c);
        deps.stdout(`${JSON.stringify({ dry_run: dryRun, changes: out, summary: summarize(changes), kept_not_in_file: kept }, null, 2)}\n`);
        return;
      }
      deps.stdout(formatList(CHANGE_COLUMNS, changes, 'The file lists no monitors.'));
      deps.stdout(summaryLine(changes, dryRun));
      if (kept > 0) deps.stdout(`${kept} endpoint(s) not in the file were kept (--prune deletes them).\n`);
    });

  return monitors;
}
