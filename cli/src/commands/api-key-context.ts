// Commands that act on a user's own data through the public API with an API key (monitors,
// incidents): the shared --api-key and --workspace options and the client they make.
import { Command } from 'commander';
import { createUserClient } from '../api/user-client';
import { resolveGlobals, type CliDeps } from '../context';
import { CliError } from '../errors';

/** A command taking --api-key (env UPFLEET_API_KEY) and --workspace (env UPFLEET_WORKSPACE). */
export function apiKeyCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .option('--api-key <key>', 'API key (upk_…) from the Profile page (env UPFLEET_API_KEY)')
    .option('--workspace <id>', "the workspace to act on (env UPFLEET_WORKSPACE); a key works only in its own workspace");
}

interface ApiKeyOptions { apiKey?: string; server?: string; json?: boolean; dataDir?: string; workspace?: string }

/** The API key client of a command made by apiKeyCommand. */
export function userContext(cmd: Command, deps: CliDeps) {
  const opts = cmd.optsWithGlobals<ApiKeyOptions & { token?: string }>();
  const globals = resolveGlobals(opts, deps);
  const flagKey = opts.apiKey?.trim() || deps.env.UPFLEET_API_KEY?.trim();
  const workspace = opts.workspace?.trim() || deps.env.UPFLEET_WORKSPACE?.trim() || null;
  if (workspace && !/^[1-9]\d*$/.test(workspace)) throw new CliError('usage', `--workspace must be a workspace id such as 12 (got '${workspace}')`);
  const apiKey = () => {
    if (!flagKey) throw new CliError('usage', 'No API key: pass --api-key or set UPFLEET_API_KEY (create one on the Profile page of a plan with API access)');
    return flagKey;
  };
  const client = createUserClient({ workspace, server: globals.server, fetch: deps.fetch, apiKey });
  return { globals, client, apiKey, workspace };
}

