// The agent's one configuration schema: defaults < JSON config file < UPFLEET_* env < overrides
// (command-line flags or the embedding control plane). Only this file reads process.env.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { splitJoinToken } from '@upfleet/proto/join-token';
import { controlPlaneAddresses, isControlPlaneAddress } from '@upfleet/proto/control-plane-address';

export type AgentTls =
  | { mode: 'system' }
  | { mode: 'ca'; caFile: string }
  | { mode: 'pin'; fingerprint256: string }
  /** one-line join: fetch the CA over the gRPC port, trust it only if its SHA-256 is the token's, keep it in caFile */
  | { mode: 'join'; caFingerprint: string; caFile: string }
  | { mode: 'insecure' };

export interface AgentConfig {
  /** control plane gRPC address, HOST:PORT, or several separated by commas (tried in turn) */
  controlPlane: string;
  /** 'REGION-City', e.g. 'EU-Germany' */
  region: string;
  /** bootstrap token; only needed until the identity is saved in dataDir */
  token: string;
  dataDir: string;
  tls: AgentTls;
  /** Prometheus text on 127.0.0.1; 0 turns it off */
  metricsPort: number;
  metricsHost: string;
  concurrency: number;
  /** worker threads running probes; 0 runs them on the main thread */
  /** Probe worker threads: a fixed number (0 = main thread only) or 'auto': threads start when
   *  the main thread stays busy, one per core. */
  probeThreads: number | 'auto';
  outboxCap: number;
  batchSize: number;
  flushIntervalMs: number;
  maxBatchesInFlight: number;
  allowPrivateTargets: boolean;
  /** PEM file of extra CAs the probes trust besides the system roots */
  probeCaFile: string | null;
  hostname: string;
  logLevel: string;
  /** the Chromium browser checks run with (not bundled: Debian's `chromium` package) */
  chromiumPath: string;
  /** browsers running at once: each is a few hundred MB (default: one per 700 MB of memory, at most one per core, at least 1) */
  browserConcurrency: number;
}

/** Memory per concurrent browser that the default concurrency assumes. */
export const BROWSER_MEMORY_BYTES = 700 * 1024 * 1024;
// Memory bounds the browsers, and so do the cores: 34 Chromiums on a 2-core, 24 GB machine all
// timed out at 30 s (bench:agent-browser), where 2 passed every check.
export const defaultBrowserConcurrency = (totalMemoryBytes = os.totalmem(), cores = os.availableParallelism()): number =>
  Math.max(1, Math.min(Math.floor(totalMemoryBytes / BROWSER_MEMORY_BYTES), cores));

export interface AgentConfigOverrides {
  configFile?: string;
  controlPlane?: string;
  region?: string;
  token?: string;
  dataDir?: string;
  caFile?: string;
  serverFingerprint?: string;
  insecure?: boolean;
  metricsPort?: number | string;
  concurrency?: number | string;
  probeThreads?: number | string;
  outboxCap?: number | string;
  batchSize?: number | string;
  flushIntervalMs?: number | string;
  maxBatchesInFlight?: number | string;
  allowPrivateTargets?: boolean | string;
  probeCaFile?: string;
  hostname?: string;
  logLevel?: string;
  chromiumPath?: string;
  browserConcurrency?: number | string;
}

type Env = Record<string, string | undefined>;
type Key = Exclude<keyof AgentConfigOverrides, 'configFile'>;

export class AgentConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid agent configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/** env names per key; the first is the documented one */
const ENV: Record<Key, string[]> = {
  controlPlane: ['UPFLEET_CONTROL_PLANE'],
  region: ['UPFLEET_REGION'],
  token: ['UPFLEET_TOKEN'],
  dataDir: ['UPFLEET_DATA_DIR'],
  caFile: ['UPFLEET_CA_FILE'],
  serverFingerprint: ['UPFLEET_SERVER_FINGERPRINT'],
  insecure: ['UPFLEET_INSECURE'],
  metricsPort: ['UPFLEET_METRICS_PORT'],
  concurrency: ['UPFLEET_CONCURRENCY'],
  probeThreads: ['UPFLEET_PROBE_THREADS'],
  outboxCap: ['UPFLEET_OUTBOX_CAP'],
  batchSize: ['UPFLEET_BATCH_SIZE'],
  flushIntervalMs: ['UPFLEET_FLUSH_INTERVAL_MS'],
  maxBatchesInFlight: ['UPFLEET_MAX_BATCHES_IN_FLIGHT'],
  allowPrivateTargets: ['UPFLEET_ALLOW_PRIVATE_TARGETS', 'ALLOW_PRIVATE_TARGETS'],
  probeCaFile: ['UPFLEET_PROBE_CA_FILE'],
  hostname: ['UPFLEET_HOSTNAME'],
  logLevel: ['UPFLEET_LOG_LEVEL', 'LOG_LEVEL'],
  chromiumPath: ['UPFLEET_CHROMIUM_PATH'],
  browserConcurrency: ['UPFLEET_BROWSER_CONCURRENCY'],
};

const FLAG: Record<Key, string> = {
  controlPlane: '--control-plane', region: '--region', token: '--token', dataDir: '--data-dir',
  caFile: '--ca-file', serverFingerprint: '--server-fingerprint', insecure: '--insecure',
  metricsPort: '--metrics-port', concurrency: '--concurrency', probeThreads: '--probe-threads', outboxCap: '--outbox-cap',
  batchSize: '--batch-size', flushIntervalMs: '--flush-interval-ms', maxBatchesInFlight: '--max-batches-in-flight',
  allowPrivateTargets: '--allow-private-targets', probeCaFile: '--probe-ca-file', hostname: '--hostname',
  logLevel: '--log-level', chromiumPath: '--chromium-path', browserConcurrency: '--browser-concurrency',
};

/** Where a one-line join keeps the control plane's CA, inside the data dir. */
export const JOINED_CA_FILE = 'ca.pem';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadAgentConfig(env: Env = process.env, overrides: AgentConfigOverrides = {}, cwd = process.cwd()): AgentConfig {
  const problems: string[] = [];

  const fileName = overrides.configFile ?? env.UPFLEET_AGENT_CONFIG;
  let file: Record<string, unknown> = {};
  if (fileName) {
    try {
      const parsed = JSON.parse(readFileSync(path.resolve(cwd, fileName), 'utf8')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) file = parsed as Record<string, unknown>;
      else problems.push(`config file ${fileName} must hold a JSON object`);
    } catch (err) {
      problems.push(`config file ${fileName} cannot be read: ${(err as Error).message}`);
    }
    for (const k of Object.keys(file)) if (!(k in ENV)) problems.push(`config file ${fileName}: unknown key '${k}'`);
  }

  /** the winning raw value and where it came from, for messages */
  const raw = (k: Key): { value: string; from: string } | undefined => {
    const o = overrides[k];
    if (o !== undefined && o !== '') return { value: String(o), from: FLAG[k] };
    for (const name of ENV[k]) {
      const v = env[name];
      if (v !== undefined && v.trim() !== '') return { value: v.trim(), from: name };
    }
    const f = file[k];
    if (f !== undefined && f !== null && f !== '') return { value: typeof f === 'string' ? f : JSON.stringify(f), from: `${fileName}:${k}` };
    return undefined;
  };
  const str = (k: Key): string | null => raw(k)?.value ?? null;
  const int = (k: Key, def: number, min: number, max: number): number => {
    const r = raw(k);
    if (!r) return def;
    const n = Number(r.value);
    if (!/^\d+$/.test(r.value) || n < min || n > max) {
      problems.push(`${r.from} must be a whole number from ${min} to ${max} (got '${r.value}')`);
      return def;
    }
    return n;
  };
  const bool = (k: Key, def: boolean): boolean => {
    const r = raw(k);
    if (!r) return def;
    const v = r.value.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    problems.push(`${r.from} must be true or false (got '${r.value}')`);
    return def;
  };

  const controlPlaneRaw = str('controlPlane');
  const controlPlanes = controlPlaneRaw ? controlPlaneAddresses(controlPlaneRaw) : [];
  if (controlPlanes.length === 0) {
    problems.push(`control plane address is required (${FLAG.controlPlane} HOST:PORT or ${ENV.controlPlane[0]}; several as a,b)`);
  } else {
    for (const a of controlPlanes) {
      if (!isControlPlaneAddress(a)) {
        problems.push(`control plane address must be HOST:PORT (got '${a}')`);
      }
    }
  }
  const controlPlane = controlPlanes.join(',');
  const region = str('region');
  if (!region) problems.push(`region is required (${FLAG.region} REGION-City, e.g. EU-Germany, or ${ENV.region[0]})`);
  else if (!/^[A-Za-z0-9]+-[A-Za-z0-9][A-Za-z0-9 ._]*$/.test(region)) {
    problems.push(`region must look like REGION-City, e.g. EU-Germany (got '${region}')`);
  }

  const caFile = str('caFile');
  const fingerprint = str('serverFingerprint');
  const insecure = bool('insecure', false);
  let tls: AgentTls = { mode: 'system' };
  if ([caFile, fingerprint, insecure || null].filter(Boolean).length > 1) {
    problems.push(`choose one of ${FLAG.caFile}, ${FLAG.serverFingerprint} and ${FLAG.insecure}`);
  } else if (caFile) {
    tls = { mode: 'ca', caFile: path.resolve(cwd, caFile) };
  } else if (fingerprint) {
    const hex = fingerprint.replace(/:/g, '').toUpperCase();
    if (!/^[0-9A-F]{64}$/.test(hex)) problems.push(`server fingerprint must be a SHA-256 hex digest (got '${fingerprint}')`);
    tls = { mode: 'pin', fingerprint256: hex };
  } else if (insecure) {
    tls = { mode: 'insecure' };
  }

  const dataDir = path.resolve(cwd, str('dataDir') ?? './agent-data');
  const token = str('token') ?? '';
  if (tls.mode === 'system' && !caFile && !fingerprint && !insecure) {
    // No trust flag: the token's CA fingerprint (one-line join), or the CA a join stored earlier.
    const joined = path.join(dataDir, JOINED_CA_FILE);
    const { caFingerprint } = splitJoinToken(token);
    if (caFingerprint) tls = { mode: 'join', caFingerprint, caFile: joined };
    else if (existsSync(joined)) tls = { mode: 'ca', caFile: joined };
  }

  const logLevel = str('logLevel') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`log level must be one of ${LOG_LEVELS.join(', ')} (got '${logLevel}')`);
  const probeCaFile = str('probeCaFile');

  const config: AgentConfig = {
    controlPlane,
    region: region ?? '',
    token,
    dataDir,
    tls,
    metricsPort: int('metricsPort', 9464, 0, 65535),
    metricsHost: '127.0.0.1',
    concurrency: int('concurrency', 256, 1, 100_000),
    probeThreads: (str('probeThreads') ?? 'auto') === 'auto' ? 'auto' : int('probeThreads', 0, 0, 64),
    outboxCap: int('outboxCap', 1_000_000, 1000, 1_000_000_000),
    batchSize: int('batchSize', 2000, 1, 5000),
    flushIntervalMs: int('flushIntervalMs', 1000, 10, 600_000),
    maxBatchesInFlight: int('maxBatchesInFlight', 4, 1, 64),
    allowPrivateTargets: bool('allowPrivateTargets', true),
    probeCaFile: probeCaFile ? path.resolve(cwd, probeCaFile) : null,
    hostname: str('hostname') ?? os.hostname(),
    logLevel,
    chromiumPath: path.resolve(cwd, str('chromiumPath') ?? '/usr/bin/chromium'),
    browserConcurrency: int('browserConcurrency', defaultBrowserConcurrency(), 1, 1000),
  };
  if (problems.length) throw new AgentConfigError(problems);
  return config;
}

/** The config as it may be logged: the bootstrap token never appears. */
export function redactConfig(config: AgentConfig): Record<string, unknown> {
  return { ...config, token: config.token ? '[redacted]' : '' };
}

/** Flags of `upfleet agent run` / `tsx agent/src/main.ts` as overrides. */
export function parseAgentArgv(argv: string[]): { overrides: AgentConfigOverrides; help: boolean } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      config: { type: 'string' },
      ...Object.fromEntries(
        (Object.entries(FLAG) as [Key, string][]).map(([k, flag]) => [
          flag.slice(2),
          { type: k === 'insecure' ? ('boolean' as const) : ('string' as const) },
        ]),
      ),
    },
  });
  const overrides: AgentConfigOverrides = {};
  const v = values as Record<string, string | boolean | undefined>;
  if (typeof v.config === 'string') overrides.configFile = v.config;
  for (const [k, flag] of Object.entries(FLAG) as [Key, string][]) {
    const val = v[flag.slice(2)];
    if (val !== undefined) (overrides as Record<string, unknown>)[k] = val;
  }
  return { overrides, help: Boolean(v.help) };
}

export const AGENT_USAGE = `usage: upfleet agent run --control-plane HOST:PORT --region REGION-City --token TOKEN --data-dir DIR
  [--ca-file FILE | --server-fingerprint SHA256 | --insecure] (none needed with a token that carries the CA fingerprint) [--metrics-port 9464] [--concurrency 256] [--probe-threads auto|N]
  [--outbox-cap 1000000] [--batch-size 2000] [--flush-interval-ms 1000] [--allow-private-targets true]
  [--probe-ca-file FILE] [--chromium-path /usr/bin/chromium] [--browser-concurrency N] [--config FILE.json] [--log-level info]
Every flag has an UPFLEET_* environment twin (UPFLEET_CONTROL_PLANE, UPFLEET_REGION, UPFLEET_TOKEN, ...).`;

