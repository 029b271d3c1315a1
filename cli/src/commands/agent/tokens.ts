import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { commandContext, type CliDeps } from '../../context';
import { CliError } from '../../errors';
import { formatList, type Column } from '../../formatters/table';
import { formatDate, formatRelative } from '../../formatters/time';
import { parseDuration } from '../../lib/duration';
import type { AgentTokenInfo, CreatedAgentToken } from '../../api/types';
import { splitJoinToken } from '@upfleet/proto/join-token';
import { controlPlaneAddresses, isControlPlaneAddress } from '@upfleet/proto/control-plane-address';

/** The gRPC port agents dial by default (control plane GRPC_PORT). */
export const DEFAULT_GRPC_PORT = 50051;

export function tokenStatus(t: AgentTokenInfo, nowMs: number): 'active' | 'revoked' | 'expired' {
  if (t.revoked_at) return 'revoked';
  if (t.expires_at && Date.parse(t.expires_at) <= nowMs) return 'expired';
  return 'active';
}

export interface LocalControlPlane {
  /** its generated gRPC CA (DATA_DIR/grpc-tls/ca.pem), when present */
  caFile: string | null;
  /** its actual gRPC port from DATA_DIR/runtime.json, when present */
  grpcPort: number | null;
  /** --control-plane: the gRPC addresses agents dial (a cluster's processes), instead of the --server host's */
  addresses?: string[];
}

/** What this host can see of the control plane's data directory, to make the hint exact. */
export function inspectDataDir(dataDir: string): LocalControlPlane {
  const ca = path.join(dataDir, 'grpc-tls', 'ca.pem');
  let grpcPort: number | null = null;
  try {
    const runtime = JSON.parse(fs.readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')) as { grpcPort?: unknown };
    if (typeof runtime.grpcPort === 'number' && runtime.grpcPort > 0) grpcPort = runtime.grpcPort;
  } catch {
    // not on the control plane's host: the default port goes in the hint
  }
  return { caFile: fs.existsSync(ca) ? ca : null, grpcPort };
}

/** The command an operator runs on the agent host; the gRPC host is the --server host. */
export function agentRunHint(server: string, token: CreatedAgentToken, local: LocalControlPlane): string {
  const host = new URL(server).hostname;
  const hostPort = host.includes(':') ? `[${host.replace(/^\[|\]$/g, '')}]` : host;
  const controlPlane = local.addresses?.length ? local.addresses.join(',') : `${hostPort}:${local.grpcPort ?? DEFAULT_GRPC_PORT}`;
  // A token carrying the CA's fingerprint needs nothing else: the agent fetches and pins the CA.
  if (splitJoinToken(token.token).caFingerprint) {
    return `upfleet agent run --control-plane ${controlPlane} --region ${token.region} --token ${token.token}`;
  }
  return (
    `upfleet agent run --control-plane ${controlPlane} --region ${token.region} ` +
    `--token ${token.token} --data-dir ./agent-data --ca-file ${local.caFile ?? 'ca.pem'}`
  );
}

/**
 * The line to paste on an agent's machine (no Node or repository needed there): the control
 * plane's install script downloads its agent executable. From PUBLIC_URL when the server has one,
 * else the address this CLI talked to; the agent dials the same host's gRPC port.
 */
export function installLine(server: string, token: CreatedAgentToken, local: LocalControlPlane): string {
  const base = (token.public_url ?? server).replace(/\/+$/, '');
  const args = agentRunHint(base, token, local).replace(/^upfleet agent run /, '');
  return `curl -fsSL ${base}/install-agent.sh | sudo sh -s -- ${args}`;
}

export function formatCreatedToken(server: string, token: CreatedAgentToken, nowMs: number, local: LocalControlPlane): string {
  const expiry = token.expires_at ? `expires ${formatRelative(token.expires_at, nowMs)}, ${formatDate(token.expires_at)} UTC` : 'does not expire';
  const uses = token.max_uses === undefined ? '' : token.max_uses === null ? ', any number of agents' : token.max_uses === 1 ? ', single-use' : `, ${token.max_uses} agents`;
  const hint = agentRunHint(server, token, local);
  const joins = splitJoinToken(token.token).caFingerprint !== null;
  return [
    `Agent bootstrap token for ${token.region} (id ${token.token_id}, ${expiry}${uses}):`,
    '',
    `  ${token.token}`,
    '',
    joins
      ? "It is shown only this once; it carries the fingerprint of the control plane's CA. Start an agent on a host in that region with:"
      : 'It is shown only this once. Start an agent on a host in that region with:',
    `  ${hint}`,
    ...(joins
      ? [
          'or install it there as a service (systemd; writes the token to a 0600 env file):',
          `  sudo ${hint.replace('upfleet agent run', 'upfleet agent install')}`,
          'or, on a machine with neither Node nor this repository, paste this one line (downloads the agent executable, checks its sha256, installs the service):',
          `  ${installLine(server, token, local)}`,
          '',
        ]
      : [local.caFile ? '' : "(ca.pem: the control plane's DATA_DIR/grpc-tls/ca.pem; leave --ca-file out if its gRPC certificate is publicly trusted)\n"]),
  ].join('\n');
}

/** --control-plane a:50051,b:50051: each HOST:PORT, as the agent will check them. */
function parseAddresses(text: string): string[] {
  const list = controlPlaneAddresses(text);
  const bad = list.find((a) => !isControlPlaneAddress(a));
  if (list.length === 0 || bad !== undefined) {
    throw new CliError('usage', `Invalid --control-plane '${bad ?? text}': HOST:PORT, or several separated by commas (a:50051,b:50051)`);
  }
  return list;
}

/** --uses N or 'unlimited'. */
function parseUses(text: string): number | null {
  if (text === 'unlimited') return null;
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new CliError('usage', `Invalid --uses '${text}': a whole number of agents (1 or more), or 'unlimited'`);
  return Number(text);
}

export function tokenCommand(deps: CliDeps): Command {
  const token = new Command('token').description('Bootstrap tokens that let new agents register');

  token
    .command('create')
    .description('Create a bootstrap token for one region; prints the token once')
    .requiredOption('--region <REGION-City>', 'region the agent will serve, e.g. US-Virginia')
    .option('--expires <duration>', "lifetime such as 30m, 24h, 7d, or 'never' (default 24h)")
    .option('--uses <n>', "agents that may register with it, or 'unlimited' (default 1: single-use)")
    .option('--control-plane <host:port,...>', "gRPC addresses the printed command dials, several for a cluster (a:50051,b:50051); default: the --server host's gRPC port")
    .action(async (opts: { region: string; expires?: string; uses?: string; controlPlane?: string }, cmd: Command) => {
      const expiresIn = opts.expires === undefined ? undefined : opts.expires === 'never' ? null : parseDuration(opts.expires);
      const uses = opts.uses === undefined ? undefined : parseUses(opts.uses);
      const addresses = opts.controlPlane === undefined ? undefined : parseAddresses(opts.controlPlane);
      const ctx = commandContext(cmd, deps);
      const created = await ctx.client.createAgentToken(opts.region, expiresIn, uses);
      ctx.print(created, (t) => formatCreatedToken(ctx.globals.server, t, ctx.now(), { ...inspectDataDir(ctx.globals.dataDir), addresses }));
    });

  token
    .command('revoke')
    .description('Revoke a bootstrap token: no new agent can register with it, and the agents it registered are revoked too')
    .argument('[token_id]', 'token id from `upfleet agent token list`')
    .option('--id <token_id>', 'token id (same as the argument)')
    .action(async (idArg: string | undefined, opts: { id?: string }, cmd: Command) => {
      const id = idArg ?? opts.id;
      if (!id) throw new CliError('usage', 'Which token? Pass its id: upfleet agent token revoke <token_id>');
      const ctx = commandContext(cmd, deps);
      const revoked = await ctx.client.revokeAgentToken(id);
      ctx.print(revoked, (r) => `Revoked token ${r.token_id} at ${formatDate(r.revoked_at)} UTC, with the agents it registered.\n`);
    });

  token
    .command('list')
    .description('List bootstrap tokens (never their secret values)')
    .action(async (_opts, cmd: Command) => {
      const ctx = commandContext(cmd, deps);
      const tokens = await ctx.client.listAgentTokens();
      const now = ctx.now();
      const columns: Column<AgentTokenInfo>[] = [
        { header: 'TOKEN ID', value: (t) => t.token_id },
        { header: 'REGION', value: (t) => t.region },
        { header: 'STATUS', value: (t) => tokenStatus(t, now) },
        { header: 'CREATED', value: (t) => formatDate(t.created_at) },
        { header: 'EXPIRES', value: (t) => (t.expires_at ? formatRelative(t.expires_at, now) : 'never') },
        { header: 'USED', value: (t) => t.used_count, align: 'right' },
      ];
      ctx.print(tokens, (rows) => formatList(columns, rows, 'No agent tokens.'));
    });

  return token;
}
