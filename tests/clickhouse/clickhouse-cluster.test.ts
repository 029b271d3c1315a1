// The scale-out path proven on this machine: a 2-shard ClickHouse cluster (two local servers, one
// remote_servers config), the production cluster schema with MergeTree shards, and the control
// plane's own result store pointed at it through CLICKHOUSE_URL's code path.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { CheckResult } from '@upfleet/proto';
import { createResultStore, type ClickHouseResultStore } from '../../control-plane/src/results/clickhouse-store';
import { BROWSER_COLUMNS } from '../../control-plane/src/results/columns';
import { CLUSTER_SCHEMA_FILE, clusterSchemaForTests, startClickHouseCluster, type ClickHouseCluster } from '../helpers/clickhouse-cluster';
import { clickhouseServerUnavailable, startClickHouseServer, type ClickHouseServer } from '../helpers/clickhouse-server';

const logger = pino({ level: 'silent' });
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW_HOUR = Math.floor(Date.now() / HOUR) * HOUR;
const ENDPOINTS = Array.from({ length: 20 }, (_, i) => 101 + i);

/** Three days of checks per endpoint: HTTP and ping every 10 minutes, TLS every hour. */
function history(endpointId: number, fromMs: number, toMs: number, tag: string): CheckResult[] {
  const out: CheckResult[] = [];
  const base = {
    endpoint_id: endpointId, region: 'EU-Germany', phase: '', error: '', dns_ms: 1, connect_ms: 2, tls_ms: 3, ttfb_ms: 4,
    cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: 90,
  };
  for (let ts = fromMs, i = 0; ts < toMs; ts += 10 * MIN, i++) {
    const code = (i + endpointId) % 7 === 0 ? 500 : 200;
    out.push({ ...base, check_id: `${endpointId}:http:EU-Germany`, kind: 'CHECK_KIND_HTTP', ts_ms: ts + 17, ok: code === 200, status_code: code, total_ms: 40 + ((i * endpointId) % 50), result_id: `${tag}-h-${endpointId}-${i}` });
    out.push({ ...base, check_id: `${endpointId}:ping:EU-Germany`, kind: 'CHECK_KIND_PING', ts_ms: ts + 29, ok: true, status_code: 0, total_ms: 5 + (i % 4), ping_method: 'icmp', result_id: `${tag}-p-${endpointId}-${i}` });
    if (i % 6 === 0) {
      out.push({ ...base, check_id: `${endpointId}:tls:EU-Germany`, kind: 'CHECK_KIND_TLS', ts_ms: ts + 41, ok: true, status_code: 0, total_ms: 9, cert_days_left: 60 - (ts - fromMs) / DAY, cert_not_after_ms: fromMs + 60 * DAY, result_id: `${tag}-t-${endpointId}-${i}` });
    }
  }
  return out;
}

/** Batches as agents send them: mixed endpoints, so every batch spans both shards. */
function batches(rows: CheckResult[], size: number, prefix: string): Array<{ id: string; results: CheckResult[] }> {
  const sorted = [...rows].sort((a, b) => a.ts_ms - b.ts_ms || a.endpoint_id - b.endpoint_id);
  const out = [];
  for (let i = 0; i * size < sorted.length; i++) out.push({ id: `${prefix}-${i}`, results: sorted.slice(i * size, (i + 1) * size) });
  return out;
}

const unavailable = clickhouseServerUnavailable();

describe.skipIf(unavailable !== null)(`ClickHouse cluster: 2 shards, Distributed tables, the control plane store${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let cluster: ClickHouseCluster;
  let reference: ClickHouseServer;
  let store: ClickHouseResultStore;
  let single: ClickHouseResultStore;
  const rows = ENDPOINTS.flatMap((id) => history(id, NOW_HOUR - 3 * DAY, NOW_HOUR, 'h'));
  const sent = batches(rows, 1000, 'cluster');

  const onNode = async (i: number, sql: string) => Number((await cluster.nodes[i].query(sql)).trim());
  const perShard = (sql: string) => Promise.all(cluster.nodes.map((_, i) => onNode(i, sql)));
  const counts = async () => ({
    raw: await store.countResults(),
    '1m': await store.countResults({ table: '1m' }),
    '1h': await store.countResults({ table: '1h' }),
  });

  beforeAll(async () => {
    [cluster, reference] = await Promise.all([startClickHouseCluster({ shards: 2 }), startClickHouseServer()]);
    for (const node of cluster.nodes) for (const stmt of clusterSchemaForTests()) await node.query(stmt);
    // The control plane writes to any node (here the first); its init() must find the cluster schema.
    store = createResultStore({ clickhouseUrl: cluster.nodes[0].url, dataDir: '/nonexistent', logger });
    await store.init();
    // The same data on one plain server: what the cluster must answer like.
    single = createResultStore({ clickhouseUrl: reference.url, dataDir: '/nonexistent', logger });
    await single.init();
    for (const b of sent) {
      await store.insertBatch(b.id, 'agent-1', b.results);
      await single.insertBatch(b.id, 'agent-1', b.results);
    }
  }, 180_000);
  afterAll(async () => {
    await store?.close();
    await single?.close();
    await cluster?.stop();
    await reference?.stop();
  });

  it('keeps the Distributed tables of the cluster schema when the control plane applies its own schema', async () => {
    for (let i = 0; i < cluster.nodes.length; i++) {
      const engines = await cluster.nodes[i].query(
        "SELECT name, engine FROM system.tables WHERE database = 'upfleet' ORDER BY name FORMAT TSV",
      );
      expect(engines.trim().split('\n')).toEqual([
        'check_results\tDistributed',
        'check_results_1h\tDistributed',
        'check_results_1h_local\tAggregatingMergeTree',
        'check_results_1h_mv\tMaterializedView',
        'check_results_1m\tDistributed',
        'check_results_1m_local\tAggregatingMergeTree',
        'check_results_1m_mv\tMaterializedView',
        'check_results_local\tMergeTree',
      ]);
    }
  });

  it('spreads results written through the Distributed table over both shards, each endpoint on one shard, every row once', async () => {
    const raw = await perShard('SELECT count() FROM upfleet.check_results_local');
    for (const n of raw) expect(n).toBeGreaterThan(rows.length / 5);
    expect(raw[0] + raw[1]).toBe(rows.length);
    const endpoints = await perShard('SELECT uniqExact(endpoint_id) FROM upfleet.check_results_local');
    expect(endpoints[0] + endpoints[1]).toBe(ENDPOINTS.length);
    // The views run on each shard, on the rows that shard received.
    expect(await perShard('SELECT sum(n) FROM upfleet.check_results_1m_local')).toEqual(raw);
    expect(await perShard('SELECT sum(n) FROM upfleet.check_results_1h_local')).toEqual(raw);
    expect(await counts()).toEqual({ raw: rows.length, '1m': rows.length, '1h': rows.length });
  });

  it('reads graphs from raw rows and both rollups, and uptime, through the Distributed tables as one server does', async () => {
    const functions = ['response_time', 'response_code', 'ping', 'cert_expiry'] as const;
    const ranges = [
      { fromMs: NOW_HOUR - 6 * HOUR, toMs: NOW_HOUR }, // raw
      { fromMs: NOW_HOUR - 2 * DAY, toMs: NOW_HOUR }, // minute rollup
      { fromMs: NOW_HOUR - 30 * DAY, toMs: NOW_HOUR }, // hour rollup
    ];
    for (const ep of ENDPOINTS.slice(0, 6)) {
      for (const r of ranges) {
        const q = { ...r, functions: [...functions] };
        const fromCluster = await store.graphs(ep, q);
        expect(fromCluster.map((s) => s.function)).toEqual([...functions]);
        for (const s of fromCluster) expect(s.data.length).toBeGreaterThan(0);
        expect(fromCluster).toEqual(await single.graphs(ep, q));
      }
    }
    const since = NOW_HOUR - 7 * DAY;
    const up = await store.uptime(ENDPOINTS, { sinceMs: since, untilMs: Date.now() });
    for (const ep of ENDPOINTS) {
      const http = rows.filter((r) => r.endpoint_id === ep && r.kind === 'CHECK_KIND_HTTP');
      const ok = http.filter((r) => r.status_code === 200).length;
      expect(up.get(ep), `endpoint ${ep}`).toBe(Math.round((ok * 10000) / http.length) / 100);
    }
    expect(up).toEqual(await single.uptime(ENDPOINTS, { sinceMs: since, untilMs: Date.now() }));
  });

  it('stores a re-sent batch once across the shards, in the raw table and in both rollups', async () => {
    const before = await perShard('SELECT count() FROM upfleet.check_results_local');
    for (const b of sent.slice(0, 5)) {
      await store.insertBatch(b.id, 'agent-1', b.results);
      await store.insertBatch(b.id, 'agent-1', b.results);
    }
    // Through the other node too: the token, not the node, decides.
    const other = createResultStore({ clickhouseUrl: cluster.nodes[1].url, dataDir: '/nonexistent', logger });
    try {
      await other.init();
      await other.insertBatch(sent[0].id, 'agent-1', sent[0].results);
    } finally {
      await other.close();
    }
    expect(await perShard('SELECT count() FROM upfleet.check_results_local')).toEqual(before);
    expect(await counts()).toEqual({ raw: rows.length, '1m': rows.length, '1h': rows.length });
  });

  it('fails a batch while a shard is down (no ack) and stores it exactly once when re-sent after the shard is back', async () => {
    const extra = ENDPOINTS.flatMap((id) => history(id, NOW_HOUR - HOUR, NOW_HOUR, 'outage'));
    const batch = { id: 'outage-1', results: extra };
    const expected = rows.length + extra.length;
    await cluster.stopNode(1);
    // The agent keeps the batch in its outbox and re-sends it: a rejected insert is not acked.
    await expect(store.insertBatch(batch.id, 'agent-1', batch.results)).rejects.toThrow();
    await cluster.startNode(1);
    await store.insertBatch(batch.id, 'agent-1', batch.results);
    await store.insertBatch(batch.id, 'agent-1', batch.results);
    expect(await counts()).toEqual({ raw: expected, '1m': expected, '1h': expected });
    const raw = await perShard('SELECT count() FROM upfleet.check_results_local');
    expect(raw[0] + raw[1]).toBe(expected);
  });

  it('upgrades a cluster made before schema step 2 with deploy/clickhouse/upgrades/2-rollup-p95.sql; a control plane refuses to start on it until then', async () => {
    const views = () => perShard("SELECT cityHash64(groupArray(as_select)) FROM (SELECT as_select FROM system.tables WHERE database = 'upfleet' AND name LIKE '%\\_mv' ORDER BY name)");
    const p95Columns = () => cluster.nodes[0].query(
      "SELECT table, name FROM system.columns WHERE database = 'upfleet' AND name IN ('total_q', 'total_p95') ORDER BY table FORMAT TSV");
    const viewsNow = await views();
    const columnsNow = await p95Columns();
    // The cluster as the schema was before step 2, on every node: total_q, a quantileTDigest state.
    for (const node of cluster.nodes) {
      for (const g of ['1m', '1h']) {
        for (const t of [`check_results_${g}_local`, `check_results_${g}`]) {
          await node.query(`ALTER TABLE upfleet.${t} ADD COLUMN total_q AggregateFunction(quantileTDigest(0.95), Float32) AFTER total_max`);
        }
        const q = (await node.query(`SELECT as_select FROM system.tables WHERE database = 'upfleet' AND name = 'check_results_${g}_mv' FORMAT TSVRaw`)).trim();
        await node.query(`ALTER TABLE upfleet.check_results_${g}_mv MODIFY QUERY ${q.replace('quantileTimingStateIf', 'quantileTDigestStateIf').replace('AS total_p95', 'AS total_q')}`);
        for (const t of [`check_results_${g}`, `check_results_${g}_local`]) await node.query(`ALTER TABLE upfleet.${t} DROP COLUMN total_p95`);
      }
    }
    // Up to the hour before the outage test's: it re-sent rows with the same timestamps, and the
    // last status code of a tie is whichever part a merge reads first.
    const graph = { fromMs: NOW_HOUR - 30 * DAY, toMs: NOW_HOUR - 2 * HOUR, functions: ['response_time' as const, 'response_code' as const] };
    const graphBefore = await store.graphs(ENDPOINTS[0], graph);
    const countsBefore = await counts();

    const fresh = () => createResultStore({ clickhouseUrl: cluster.nodes[1].url, dataDir: '/nonexistent', logger });
    const refused = fresh();
    await expect(refused.init()).rejects.toThrow(/upgrades\/2-rollup-p95\.sql/);
    await refused.close();

    // As the runbook says, from one node with ON CLUSTER; here each node runs it (no Keeper).
    const upgrade = fs.readFileSync(path.join(path.dirname(CLUSTER_SCHEMA_FILE), 'upgrades/2-rollup-p95.sql'), 'utf8')
      .replace(/^\s*--.*$/gm, '').replace(/\s+ON CLUSTER '\{cluster\}'/g, '').split(/;\s*$/m).map((x) => x.trim()).filter(Boolean);
    expect(upgrade).toHaveLength(10);
    for (const node of cluster.nodes) for (const stmt of [...upgrade, ...upgrade]) await node.query(stmt); // twice: idempotent
    // Step 3 (views only: how an HTTP check judged by assertions counts) brings the views to this version's.
    const step3 = fs.readFileSync(path.join(path.dirname(CLUSTER_SCHEMA_FILE), 'upgrades/3-assertion-uptime.sql'), 'utf8')
      .replace(/^\s*--.*$/gm, '').replace(/\s+ON CLUSTER '\{cluster\}'/g, '').split(/;\s*$/m).map((x) => x.trim()).filter(Boolean);
    expect(step3).toHaveLength(2);
    for (const node of cluster.nodes) for (const stmt of [...step3, ...step3]) await node.query(stmt);
    // Step 4 (status-class columns): a control plane refuses Distributed rollups without them, naming the file.
    for (const node of cluster.nodes) {
      for (const g of ['1m', '1h']) await node.query(`ALTER TABLE upfleet.check_results_${g} DROP COLUMN code2_n, DROP COLUMN code3_n, DROP COLUMN code4_n, DROP COLUMN code5_n, DROP COLUMN code0_n, DROP COLUMN fail_code_max`);
    }
    const before4 = fresh();
    await expect(before4.init()).rejects.toThrow(/upgrades\/4-code-classes\.sql/);
    await before4.close();
    const step4 = fs.readFileSync(path.join(path.dirname(CLUSTER_SCHEMA_FILE), 'upgrades/4-code-classes.sql'), 'utf8')
      .replace(/^\s*--.*$/gm, '').replace(/\s+ON CLUSTER '\{cluster\}'/g, '').split(/;\s*$/m).map((x) => x.trim()).filter(Boolean);
    expect(step4).toHaveLength(6);
    for (const node of cluster.nodes) for (const stmt of [...step4, ...step4]) await node.query(stmt);
    // Step 5 (browser checks' columns on the raw table): refused without them, naming the file.
    for (const node of cluster.nodes) {
      for (const t of ['check_results', 'check_results_local']) {
        await node.query(`ALTER TABLE upfleet.${t} ${BROWSER_COLUMNS.map((c) => `DROP COLUMN ${c.name}`).join(', ')}`);
      }
    }
    const before5 = fresh();
    await expect(before5.init()).rejects.toThrow(/upgrades\/5-browser-fields\.sql/);
    await before5.close();
    const step5 = fs.readFileSync(path.join(path.dirname(CLUSTER_SCHEMA_FILE), 'upgrades/5-browser-fields.sql'), 'utf8')
      .replace(/^\s*--.*$/gm, '').replace(/\s+ON CLUSTER '\{cluster\}'/g, '').split(/;\s*$/m).map((x) => x.trim()).filter(Boolean);
    expect(step5).toHaveLength(2);
    for (const node of cluster.nodes) for (const stmt of [...step5, ...step5]) await node.query(stmt);
    expect(await views()).toEqual(viewsNow);
    expect(await p95Columns()).toBe(columnsNow);

    const upgraded = fresh();
    try {
      await upgraded.init();
      expect(await upgraded.graphs(ENDPOINTS[0], graph)).toEqual(graphBefore);
      const extra = ENDPOINTS.flatMap((id) => history(id, NOW_HOUR - 2 * HOUR, NOW_HOUR - HOUR, 'after-upgrade'));
      await upgraded.insertBatch('after-upgrade-1', 'agent-1', extra);
      await upgraded.insertBatch('after-upgrade-1', 'agent-1', extra);
      const n = countsBefore.raw + extra.length;
      expect(await counts()).toEqual({ raw: n, '1m': n, '1h': n });
      const [p] = await upgraded.select<{ filled: string }>(
        "SELECT countIf(finalizeAggregation(total_p95) > 0) AS filled FROM upfleet.check_results_1h WHERE bucket >= now() - INTERVAL 3 HOUR");
      expect(Number(p.filled)).toBeGreaterThan(0);
    } finally {
      await upgraded.close();
    }
  });
});

describe('clusterSchemaForTests', () => {
  it('derives MergeTree shards from the production schema and refuses a schema it cannot rewrite', () => {
    const stmts = clusterSchemaForTests();
    expect(stmts.join('\n')).not.toMatch(/Replicated|ON CLUSTER/);
    expect(stmts.filter((s) => /ENGINE = Distributed\('\{cluster\}'/.test(s))).toHaveLength(3);
    expect(stmts.filter((s) => /non_replicated_deduplication_window = 10000/.test(s))).toHaveLength(3);
    expect(() => clusterSchemaForTests('CREATE TABLE t (a UInt8) ENGINE = MergeTree ORDER BY a')).toThrow(/nothing matches/);
  });
});
