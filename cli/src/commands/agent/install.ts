// `upfleet agent install`: this host becomes an agent of one region, as a systemd service. Writes
// the unit and an environment file holding the token (mode 600, never on a command line), then,
// run as root on the real root, enables and starts it. --dry-run prints the files instead.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import type { CliDeps } from '../../context';
import { CliError } from '../../errors';

export const UNIT_NAME = 'upfleet-agent.service';
export const UNIT_PATH = '/etc/systemd/system/upfleet-agent.service';
export const ENV_PATH = '/etc/upfleet/agent.env';
export const DEFAULT_AGENT_DATA_DIR = '/var/lib/upfleet-agent';

const CLI_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/upfleet.js');

export interface InstallOptions {
  controlPlane: string;
  region: string;
  token: string;
  dataDir: string;
  caFile?: string;
  allowPrivateTargets?: string;
}

export interface InstallPlan {
  files: Array<{ path: string; mode: number; content: string }>;
  /** systemctl argument lists, run in order when installing for real */
  commands: string[][];
}

/** An env file value: one line, no quotes needed by systemd unless it has spaces. */
function envLine(key: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new CliError('usage', `${key} must be one line`);
  return /[\s"'\\$`]/.test(value) ? `${key}="${value.replace(/(["\\$`])/g, '\\$1')}"` : `${key}=${value}`;
}

export function planInstall(o: InstallOptions, nodePath = process.execPath, cliBin = CLI_BIN): InstallPlan {
  const env = [
    '# Upfleet agent settings (read by upfleet-agent.service). Holds the bootstrap token: keep it 0600.',
    envLine('UPFLEET_CONTROL_PLANE', o.controlPlane),
    envLine('UPFLEET_REGION', o.region),
    envLine('UPFLEET_TOKEN', o.token),
    envLine('UPFLEET_DATA_DIR', o.dataDir),
    ...(o.caFile ? [envLine('UPFLEET_CA_FILE', o.caFile)] : []),
    ...(o.allowPrivateTargets ? [envLine('UPFLEET_ALLOW_PRIVATE_TARGETS', o.allowPrivateTargets)] : []),
    '',
  ].join('\n');
  const unit = [
    '# Written by `upfleet agent install`. The agent dials out to the control plane; no inbound port.',
    '[Unit]',
    'Description=Upfleet probe agent',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `EnvironmentFile=${ENV_PATH}`,
    `ExecStart=${nodePath} ${cliBin} agent run`,
    'KillSignal=SIGTERM',
    'TimeoutStopSec=20',
    'Restart=on-failure',
    'RestartSec=5',
    '# exit code 3: refused for good (bad token, untrusted certificate); restarting cannot help',
    'RestartPreventExitStatus=3',
    'UMask=0077',
    'LimitNOFILE=65536',
    'NoNewPrivileges=yes',
    'PrivateTmp=yes',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
  return {
    files: [
      { path: ENV_PATH, mode: 0o600, content: env },
      { path: UNIT_PATH, mode: 0o644, content: unit },
    ],
    commands: [['daemon-reload'], ['enable', '--now', UNIT_NAME]],
  };
}

export interface InstallDeps {
  /** runs systemctl; node:child_process by default */
  systemctl?: (args: string[]) => { status: number | null; stderr: string };
  isRoot?: () => boolean;
}

const defaultSystemctl = (args: string[]) => {
  const r = spawnSync('systemctl', args, { encoding: 'utf8' });
  return { status: r.error ? null : r.status, stderr: r.error ? r.error.message : r.stderr };
};

export function runInstall(flags: Record<string, unknown>, deps: CliDeps & InstallDeps): number {
  const str = (k: string, env?: string) => {
    const v = flags[k] ?? (env ? deps.env[env] : undefined);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const missing = (what: string) => new CliError('usage', `${what} is required for agent install`);
  const controlPlane = str('controlPlane', 'UPFLEET_CONTROL_PLANE') ?? (() => { throw missing('--control-plane HOST:PORT'); })();
  const region = str('region', 'UPFLEET_REGION') ?? (() => { throw missing('--region REGION-City'); })();
  const token = str('token', 'UPFLEET_TOKEN') ?? (() => { throw missing("--token (from 'upfleet agent token create')"); })();
  const root = path.resolve(deps.cwd, str('root') ?? '/');
  const caFile = str('caFile');
  const plan = planInstall({
    controlPlane, region, token, dataDir: str('agentDataDir') ?? DEFAULT_AGENT_DATA_DIR,
    caFile: caFile ? path.resolve(deps.cwd, caFile) : undefined, allowPrivateTargets: str('allowPrivateTargets'),
  });

  if (flags.dryRun === true) {
    for (const f of plan.files) deps.stdout(`# ${path.join(root, f.path)} (mode ${f.mode.toString(8)})\n${f.content}\n`);
    deps.stdout(`# then, as root: ${plan.commands.map((c) => `systemctl ${c.join(' ')}`).join(' && ')}\n`);
    return 0;
  }
  for (const f of plan.files) {
    const target = path.join(root, f.path);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    fs.writeFileSync(target, f.content, { mode: f.mode });
    fs.chmodSync(target, f.mode);
    deps.stdout(`wrote ${target} (mode ${f.mode.toString(8)})\n`);
  }
  const isRoot = deps.isRoot ?? (() => process.getuid?.() === 0);
  if (root !== '/') {
    deps.stdout(`not starting the service: files were written under --root ${root}\n`);
    return 0;
  }
  if (!isRoot()) {
    deps.stdout(`not running as root: start it with sudo ${plan.commands.map((c) => `systemctl ${c.join(' ')}`).join(' && ')}\n`);
    return 0;
  }
  const systemctl = deps.systemctl ?? defaultSystemctl;
  for (const args of plan.commands) {
    const r = systemctl(args);
    if (r.status !== 0) throw new CliError('agent', `systemctl ${args.join(' ')} failed: ${r.stderr.trim() || `exit ${r.status}`}`);
    deps.stdout(`ran systemctl ${args.join(' ')}\n`);
  }
  deps.stdout(`${UNIT_NAME} is enabled and running; follow it with: journalctl -u ${UNIT_NAME} -f\n`);
  return 0;
}

export function agentInstallCommand(deps: CliDeps & InstallDeps, setExitCode: (code: number) => void): Command {
  return new Command('install')
    .description('Install this host as an agent: a systemd unit and an env file (mode 600, holding the token); enables and starts it when run as root')
    .option('--control-plane <host:port>', "control plane's gRPC address, e.g. upfleet.example.com:50051")
    .option('--region <REGION-City>', 'region this agent serves, e.g. US-Virginia')
    .option('--token <token>', 'bootstrap token from `upfleet agent token create` (its CA fingerprint needs no --ca-file)')
    .option('--agent-data-dir <dir>', `agent data dir (default ${DEFAULT_AGENT_DATA_DIR})`)
    .option('--ca-file <file>', "trust this CA for the control plane instead of the token's fingerprint")
    .option('--allow-private-targets <bool>', 'check targets on private addresses (the control plane may still forbid it)')
    .option('--root <dir>', 'write the files under this directory instead of / (and do not start anything)')
    .option('--dry-run', 'print the files and commands instead of writing or running anything')
    .action((_opts, cmd: Command) => {
      // --token also exists as a global option; optsWithGlobals finds it either way.
      setExitCode(runInstall(cmd.optsWithGlobals(), deps));
    });
}
