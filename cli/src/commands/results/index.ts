// `upfleet results export <endpoint>`: an endpoint's raw results as a CSV or NDJSON file, through the
// public API with an API key (GET /api/users/endpoints/{url_id}/results), streamed to disk with a
// progress line on a terminal.
import path from 'node:path';
import { Command } from 'commander';
import { downloadFile, type DownloadProgress } from '../../api/download';
import type { CliDeps } from '../../context';
import { CliError } from '../../errors';
import { userContext } from '../api-key-context';

const FORMATS = ['csv', 'ndjson'];
const BAR = 20;

/** 1536 → '1.5 KB' */
export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** The export's rows so far (a CSV's header is not a row). */
const rowsOf = (p: DownloadProgress, format: string) => Math.max(0, p.lines - (format === 'csv' ? 1 : 0));

/**
 * One progress line, redrawn in place: the total is unknown until the end (the server streams), so
 * the bar sweeps back and forth while rows and bytes count up.
 */
export function progressLine(p: DownloadProgress, format: string, tick: number): string {
  const pos = tick % (2 * (BAR - 3));
  const at = pos < BAR - 3 ? pos : 2 * (BAR - 3) - pos;
  const bar = `${' '.repeat(at)}<=>${' '.repeat(BAR - 3 - at)}`;
  return `\r[${bar}] ${rowsOf(p, format).toLocaleString('en-US')} rows, ${formatBytes(p.bytes)}\x1b[K`;
}

export function resultsCommand(deps: CliDeps): Command {
  const results = new Command('results')
    .description("Take an endpoint's check results out of Upfleet (API key)")
    .option('--api-key <key>', 'API key (upk_…) from the Profile page (env UPFLEET_API_KEY)')
    .option('--workspace <id>', "the workspace to act on (env UPFLEET_WORKSPACE); a key works only in its own workspace");

  results
    .command('export')
    .description("Write an endpoint's raw results (time, region, check, ok, phase, status code, timings, error) to a file")
    .argument('<endpoint>', 'the endpoint: its url_id, or its name')
    .option('--from <time>', 'from this time: an ISO 8601 date or epoch milliseconds (default: as far back as the plan keeps)')
    .option('--to <time>', 'up to this time (default: now)')
    .option('--format <format>', 'csv or ndjson', 'csv')
    .option('-o, --output <file>', 'write to this file (default: stdout)')
    .action(async (endpoint: string, opts: { from?: string; to?: string; format: string; output?: string }, cmd: Command) => {
      if (!FORMATS.includes(opts.format)) throw new CliError('usage', `--format must be csv or ndjson (got '${opts.format}')`);
      const { globals, client, apiKey, workspace } = userContext(cmd, deps);
      const id = /^[1-9]\d{0,15}$/.test(endpoint) ? Number(endpoint) : await idByName(client, endpoint);
      const query = new URLSearchParams({ format: opts.format, ...(opts.from ? { from: opts.from } : {}), ...(opts.to ? { to: opts.to } : {}) });
      const output = opts.output ? path.resolve(deps.cwd, opts.output) : null;
      // The bar goes to stderr, and only on a terminal (a script or a pipe gets the closing line).
      const tty = output !== null && deps.stderrIsTTY === true;
      const now = deps.now ?? Date.now;
      const text = new TextDecoder();
      let drawnAt = 0;
      let tick = 0;
      const done = await downloadFile({
        server: globals.server,
        apiKey: apiKey(),
        fetch: deps.fetch,
        path: `/api/users/endpoints/${id}/results?${query.toString()}`,
        ...(workspace ? { headers: { 'x-workspace-id': workspace } } : {}),
        output: output ?? ((chunk) => deps.stdout(text.decode(chunk, { stream: true }))),
        onProgress: tty
          ? (p) => {
              if (now() - drawnAt < 100) return;
              drawnAt = now();
              deps.stderr(progressLine(p, opts.format, tick++));
            }
          : undefined,
      });
      if (tty) deps.stderr('\r\x1b[K');
      if (output) deps.stdout(`Wrote ${rowsOf(done, opts.format).toLocaleString('en-US')} rows (${formatBytes(done.bytes)}) to ${opts.output}\n`);
    });
  return results;
}

async function idByName(client: ReturnType<typeof userContext>['client'], name: string): Promise<number> {
  const matches = (await client.listEndpoints()).filter((e) => e.name.toLowerCase() === name.toLowerCase());
  if (matches.length === 0) throw new CliError('not_found', `No endpoint named "${name}" (give its name or url_id)`);
  if (matches.length > 1) throw new CliError('usage', `${matches.length} endpoints are named "${name}": give the url_id (${matches.map((e) => e.url_id).join(', ')})`);
  return matches[0].url_id;
}
