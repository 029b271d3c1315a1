// `upfleet incidents list | ack`: the workspace's incidents and acknowledging one, through the
// public API with an API key (--api-key or UPFLEET_API_KEY), as `monitors` does.
import { Command } from 'commander';
import { INCIDENT_STATES, type IncidentState } from '@upfleet/proto/rest';
import type { UserClient } from '../../api/user-client';
import type { CliDeps } from '../../context';
import { CliError } from '../../errors';
import { acknowledger, formatIncidents } from '../../formatters/incidents';
import { apiKeyCommand, userContext } from '../api-key-context';

/** An endpoint given by id or by name (case-insensitive, as `monitors` matches names). */
async function endpointId(client: UserClient, given: string): Promise<number> {
  if (/^[1-9]\d*$/.test(given)) return Number(given);
  const match = (await client.listEndpoints()).filter((e) => e.name.toLowerCase() === given.trim().toLowerCase());
  if (match.length === 0) throw new CliError('not_found', `No endpoint named '${given}'`);
  return match[0].url_id;
}

export function incidentsCommand(deps: CliDeps): Command {
  const incidents = apiKeyCommand('incidents', 'Incidents of the workspace: list them, acknowledge one (API key)');

  incidents
    .command('list')
    .description('List incidents, open ones first')
    .option('--state <state>', `only this state: ${INCIDENT_STATES.join(', ')}`)
    .option('--endpoint <name or id>', "only this endpoint's incidents")
    .action(async (opts: { state?: string; endpoint?: string }, cmd: Command) => {
      const { globals, client } = userContext(cmd, deps);
      if (opts.state !== undefined && !(INCIDENT_STATES as readonly string[]).includes(opts.state)) {
        throw new CliError('usage', `--state must be one of ${INCIDENT_STATES.join(', ')} (got '${opts.state}')`);
      }
      const urlId = opts.endpoint !== undefined ? await endpointId(client, opts.endpoint) : undefined;
      const rank: Record<IncidentState, number> = { open: 0, acknowledged: 1, resolved: 2 };
      const list = (await client.incidents({ state: opts.state as IncidentState | undefined, urlId }))
        .sort((a, b) => rank[a.state] - rank[b.state] || Date.parse(b.opened_at) - Date.parse(a.opened_at));
      if (globals.json) {
        deps.stdout(`${JSON.stringify(list, null, 2)}\n`);
        return;
      }
      deps.stdout(formatIncidents(list, Date.now()));
    });

  incidents
    .command('ack')
    .description('Acknowledge an open incident (editors and above): escalation and reminders stop')
    .argument('<id>', 'the incident id (see `upfleet incidents list`)')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { globals, client } = userContext(cmd, deps);
      if (!/^[1-9]\d*$/.test(id)) throw new CliError('usage', `The incident id must be a number such as 12 (got '${id}')`);
      const incident = await client.acknowledgeIncident(Number(id));
      if (globals.json) {
        deps.stdout(`${JSON.stringify(incident, null, 2)}\n`);
        return;
      }
      deps.stdout(`Acknowledged incident ${incident.incident_id} (${incident.endpoint_name ?? `#${incident.url_id}`}: ${incident.cause}) as ${acknowledger(incident) || 'this key'}.\n`);
    });

  return incidents;
}
