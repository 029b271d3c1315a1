// A ClickHouse cluster on this machine: N local servers (clickhouse-server.ts), each one shard,
// sharing a --config-file whose remote_servers lists them all. No Keeper in this build, so the
// production schema (deploy/clickhouse/cluster-schema.sql, ReplicatedMergeTree, ON CLUSTER) is
// turned mechanically into its MergeTree twin by clusterSchemaForTests() and applied on each node.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './start-stack';
import { PortInUseError, freePort, startClickHouseServer, type ClickHouseServer } from './clickhouse-server';

export const CLUSTER_SCHEMA_FILE = path.join(REPO_ROOT, 'deploy/clickhouse/cluster-schema.sql');
/** The value of the {cluster} macro the schema's Distributed tables name. */
export const TEST_CLUSTER = 'upfleet_test';

export interface ClickHouseCluster {
  name: string;
  nodes: ClickHouseServer[];
  /** Stops node i (SIGTERM) and starts it again on the same ports and data. */
  stopNode(i: number): Promise<void>;
  startNode(i: number): Promise<void>;
  /** Stops every node and removes their data. */
  stop(): Promise<void>;
}

/**
 * The production cluster schema with what needs Keeper taken out, and nothing else changed:
 * - `ON CLUSTER '{cluster}'` is dropped (each statement runs on every node instead);
 * - `Replicated*MergeTree('<zk path>', '{replica}')` becomes `*MergeTree`;
 * - `replicated_deduplication_window` becomes `non_replicated_deduplication_window` (plain
 *   MergeTree remembers insert tokens only with it).
 * Throws when a rewrite finds nothing to rewrite, so a reshaped schema file cannot silently
 * produce a schema that no longer matches it.
 */
export function clusterSchemaForTests(sql = fs.readFileSync(CLUSTER_SCHEMA_FILE, 'utf8')): string[] {
  const text = sql.replace(/^\s*--.*$/gm, '');
  const rewrites: Array<[RegExp, string]> = [
    [/\s+ON CLUSTER '\{cluster\}'/g, ''],
    [/\bReplicated(\w*MergeTree)\('[^']*',\s*'[^']*'\)/g, '$1'],
    [/\breplicated_deduplication_window\b/g, 'non_replicated_deduplication_window'],
  ];
  let out = text;
  for (const [re, to] of rewrites) {
    if (out.search(re) < 0) throw new Error(`cluster schema: nothing matches ${re}`);
    out = out.replace(re, to);
  }
  if (/ON CLUSTER|Replicated\w*MergeTree/.test(out)) throw new Error('cluster schema: a Keeper-only construct is left');
  return out
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean);
}

function clusterConfig(name: string, tcpPorts: number[]): string {
  const shards = tcpPorts
    .map((p) => `      <shard><internal_replication>true</internal_replication><replica><host>127.0.0.1</host><port>${p}</port></replica></shard>`)
    .join('\n');
  return `<clickhouse>
  <remote_servers>
    <${name}>
${shards}
    </${name}>
  </remote_servers>
  <macros><cluster>${name}</cluster></macros>
</clickhouse>
`;
}

export async function startClickHouseCluster(opts: { shards?: number } = {}): Promise<ClickHouseCluster> {
  // Ports are fixed in the shared config: when one was taken since it was picked, pick them all again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce(opts.shards ?? 2);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof PortInUseError)) throw err;
    }
  }
}

async function startClusterOnce(n: number): Promise<ClickHouseCluster> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-clickhouse-cluster-'));
  const ports: Array<{ http: number; tcp: number }> = [];
  for (let i = 0; i < n; i++) ports.push({ http: await freePort(), tcp: await freePort() });
  const configFile = path.join(root, 'cluster.xml');
  fs.writeFileSync(configFile, clusterConfig(TEST_CLUSTER, ports.map((p) => p.tcp)));
  const dirs = ports.map((_, i) => {
    const d = path.join(root, `node${i + 1}`);
    fs.mkdirSync(d);
    return d;
  });
  const start = (i: number) =>
    startClickHouseServer({ dataDir: dirs[i], httpPort: ports[i].http, tcpPort: ports[i].tcp, configFile });
  const nodes: ClickHouseServer[] = [];
  try {
    for (let i = 0; i < n; i++) nodes.push(await start(i));
  } catch (err) {
    await Promise.all(nodes.map((s) => s.stop()));
    fs.rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    name: TEST_CLUSTER,
    nodes,
    stopNode: (i) => nodes[i].stop(),
    async startNode(i) {
      nodes[i] = await start(i);
    },
    async stop() {
      await Promise.all(nodes.map((s) => s.stop()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
