// Alerting benchmark.
// 1. Ingest results/s into embedded chDB with 10,000 endpoints × 3 thresholds evaluated after every
//    batch (as report-results does), against the same ingest with no evaluation.
// 2. Time from a confirming result's arrival to the webhook delivered (a local receiver), p50/p99,
//    one incident at a time and in a burst.
// 3. With an escalation policy (step 1 at once: webhook and Slack; step 2 after 5 min): a failing
//    check's confirming result → the first delivery, and an acknowledgement → the end of the
//    escalation (the worker's pass that stops it and replies in the Slack thread), p50/p99.
// Run: npm run bench:alerting [-- totalResults batchSize] [--escalation-only]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { CheckResult } from '@upfleet/proto';
import { createAlerting } from '../control-plane/src/alerting';
import { createChannels } from '../control-plane/src/alerting/channels';
import { createAlertingRepo } from '../control-plane/src/alerting/repo';
import { createEscalationRepo } from '../control-plane/src/alerting/escalation-repo';
import { createThreadsRepo } from '../control-plane/src/alerting/threads-repo';
import { createIncidentHandling } from '../control-plane/src/alerting/handling';
import { createHandlingRepo } from '../control-plane/src/alerting/handling-repo';
import { createTimelineRepo } from '../control-plane/src/alerting/timeline-repo';
import { sqliteSql } from '../control-plane/src/store/sql/open';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { createAlertsRepo } from '../control-plane/src/alerting/settings-repo';
import { startHttpReceiver } from '../control-plane/src/testing/alert-receivers';
import { createAlertingFixture, httpResult } from '../control-plane/src/testing/alerting';

const ENDPOINTS = 10_000;
const ARGS = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const ESCALATION_ONLY = process.argv.includes('--escalation-only');
const TOTAL = Number(ARGS[0] ?? 200_000);
const BATCH = Number(ARGS[1] ?? 1000);
const WINDOW = 4;
const logger = pino({ level: 'warn' });
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function setup(withThresholds: boolean) {
  const fx = createAlertingFixture('Business');
  const ids: number[] = [];
  fx.db.transaction(() => {
    for (let i = 0; i < ENDPOINTS; i++) {
      const id = fx.addEndpoint({ features: { response_code: true, response_time: true } });
      ids.push(id);
      if (withThresholds) {
        fx.addThreshold(id, 'response_time', '>', 2000);
        fx.addThreshold(id, 'response_code', '>=', 500);
        fx.addThreshold(id, 'response_time', '>', 5000, 'EU-Germany');
      }
    }
  })();
  return { fx, ids };
}

/** Results over every endpoint in time order; 1 in 200 fails so state writes and incidents happen too. */
function makeBatches(tag: string, ids: number[], total: number): Array<{ id: string; results: CheckResult[] }> {
  const t0 = Date.now() - 3600_000;
  const out: Array<{ id: string; results: CheckResult[] }> = [];
  let results: CheckResult[] = [];
  for (let i = 0; i < total; i++) {
    const endpoint = ids[i % ids.length];
    const round = Math.floor(i / ids.length);
    const failing = (endpoint + round) % 200 === 0 || (endpoint + round - 1) % 200 === 0;
    results.push(httpResult(endpoint, t0 + round * 10_000 + (i % 1000), failing
      ? { ok: false, status_code: 503, phase: 'http', error: 'HTTP 503', total_ms: 40 }
      : { total_ms: 20 + (i % 50) }));
    if (results.length === BATCH) {
      out.push({ id: `${tag}-${out.length}`, results });
      results = [];
    }
  }
  if (results.length) out.push({ id: `${tag}-${out.length}`, results });
  return out;
}

function createBenchAlerting(fx: ReturnType<typeof createAlertingFixture>, baseUrl = 'http://127.0.0.1:9') {
  return createAlerting({
    repo: createAlertingRepo(fx.db), alerts: createAlertsRepo(fx.db), box: fx.box, logger, regionLabel: (k) => k, primaryRegion: () => 'EU-Germany',
    channels: createChannels({ publicUrl: null, allowPrivateTargets: true, slackApiUrl: baseUrl, telegramApiUrl: baseUrl, twilio: { apiUrl: baseUrl, accountSid: null, authToken: null, from: null }, smtp: { url: null, from: null } }),
  });
}

async function ingest(label: string, withThresholds: boolean, evaluate: boolean, dataDir: string) {
  const { fx, ids } = setup(withThresholds);
  const store = createResultStore({ clickhouseUrl: null, dataDir, logger, insertLanes: 2 });
  await store.init();
  const alerting = createBenchAlerting(fx);
  const batches = makeBatches(label.replace(/\W/g, ''), ids, TOTAL);
  let evalMs = 0;
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: WINDOW }, async () => {
    while (next < batches.length) {
      const b = batches[next++];
      await store.insertBatch(b.id, 'bench', b.results);
      if (evaluate) {
        const t = performance.now();
        alerting.evaluate(b.results);
        evalMs += performance.now() - t;
      }
    }
  }));
  const ms = performance.now() - started;
  await store.close();
  const rate = (TOTAL * 1000) / ms;
  console.log(`${label.padEnd(44)}: ${fmt(rate).padStart(8)} results/s${evaluate ? `  (of which evaluation ${evalMs.toFixed(0)} ms wall, incl. loading 10,000 endpoints cold)` : ''}`);
  if (!evaluate) {
    fx.close();
    return { rate };
  }
  // Evaluation alone, warm, over the next results of the same endpoints: its cost per result
  // against the ingest's, without chDB inserts competing for the same two cores.
  const more = makeBatches('warm', ids, TOTAL).map((b) => ({ ...b, results: b.results.map((r) => ({ ...r, ts_ms: Number(r.ts_ms) + 3600_000 })) }));
  const t = performance.now();
  let changes = 0;
  for (const b of more) changes += alerting.evaluate(b.results).changed;
  const evalRate = (TOTAL * 1000) / (performance.now() - t);
  fx.close();
  console.log(`${'evaluation alone, warm, 3 thresholds each'.padEnd(44)}: ${fmt(evalRate).padStart(8)} results/s  (${changes} incident changes)`);
  return { rate, evalRate };
}

async function latency() {
  const { fx, ids } = setup(false);
  const arrivals = new Map<number, number>();
  const receiver = await startHttpReceiver((req) => {
    const body = JSON.parse(req.body) as { type: string; endpoint: { id: number } };
    if (body.type === 'incident.opened') arrivals.set(body.endpoint.id, performance.now());
    return { status: 204 };
  });
  fx.addMethod('webhook', { webhook_url: `${receiver.url}/hook`, signing_secret: 'whsec_YmVuY2hiZW5jaGJlbmNoYmVuY2g=' });
  const alerting = createBenchAlerting(fx, receiver.url);
  alerting.start();
  const t0 = Date.now() - 60_000;
  const fail = (id: number, k: number) => httpResult(id, t0 + k * 10_000, { ok: false, status_code: 503, phase: 'http', error: 'HTTP 503' });
  const waitAll = async (want: number[]) => {
    while (!want.every((id) => arrivals.has(id))) await new Promise((r) => setTimeout(r, 2));
  };

  // One at a time.
  const one: number[] = [];
  for (const id of ids.slice(0, 300)) {
    alerting.evaluate([fail(id, 0)]);
    const t = performance.now();
    alerting.evaluate([fail(id, 1)]);
    await waitAll([id]);
    one.push(arrivals.get(id)! - t);
  }
  // A burst: 1,000 endpoints confirmed down by one batch.
  const burstIds = ids.slice(1000, 2000);
  alerting.evaluate(burstIds.map((id) => fail(id, 0)));
  const tb = performance.now();
  alerting.evaluate(burstIds.map((id) => fail(id, 1)));
  await waitAll(burstIds);
  const burst = burstIds.map((id) => arrivals.get(id)! - tb);
  await alerting.stop();
  await receiver.close();
  fx.close();
  for (const [label, xs] of [['one incident at a time (300)', one], ['a burst of 1,000 incidents in one batch', burst]] as const) {
    const s = [...xs].sort((a, b) => a - b);
    console.log(`confirming result → webhook delivered, ${label.padEnd(40)}: p50 ${pct(s, 50).toFixed(1)} ms, p99 ${pct(s, 99).toFixed(1)} ms`);
  }
}

async function escalation() {
  const { fx, ids } = setup(false);
  const firsts = new Map<number, number>();
  const ackReplies = new Map<number, number>();
  const receiver = await startHttpReceiver((req) => {
    if (req.path === '/hook') {
      const body = JSON.parse(req.body) as { type: string; endpoint: { id: number } };
      if (body.type === 'incident.opened' && !firsts.has(body.endpoint.id)) firsts.set(body.endpoint.id, performance.now());
      return { status: 204 };
    }
    const body = JSON.parse(req.body) as { text?: string; ts?: string };
    const m = /^Acknowledged by .*: Site (\d+) /.exec(body.text ?? '');
    if (m) ackReplies.set(Number(m[1]), performance.now());
    return { status: 200, body: { ok: true, channel: 'C1', ts: `${Date.now()}.000100` } };
  });
  const hook = fx.addMethod('webhook', { webhook_url: `${receiver.url}/hook`, signing_secret: 'whsec_YmVuY2hiZW5jaGJlbmNoYmVuY2g=' });
  const slack = fx.addMethod('slack', { bot_token: 'xoxb-bench', channel: '#oncall' });
  const policy = Number(fx.db.prepare('INSERT INTO escalation_policies (user_id, name, steps, repeat, repeat_every_minutes, created_at) VALUES (?, ?, ?, 0, 0, ?)')
    .run(fx.userId, 'Bench', JSON.stringify([{ wait_minutes: 0, alert_method_ids: [hook, slack] }, { wait_minutes: 5, alert_method_ids: [hook] }]), Date.now()).lastInsertRowid);
  const sample = ids.slice(0, 200);
  fx.db.prepare(`UPDATE endpoints SET escalation_policy_id = ? WHERE url_id IN (${sample.join(',')})`).run(policy);
  const endpointNo = new Map(sample.map((id) => [id, Number(/Site (\d+)/.exec(fx.db.prepare('SELECT name FROM endpoints WHERE url_id = ?').pluck().get(id) as string)![1])]));
  const alerting = createAlerting({
    repo: createAlertingRepo(fx.db), alerts: createAlertsRepo(fx.db), box: fx.box, logger, regionLabel: (k) => k, primaryRegion: () => 'EU-Germany',
    escalations: createEscalationRepo(fx.db), threads: createThreadsRepo(sqliteSql(fx.db).db),
    channels: createChannels({ publicUrl: null, allowPrivateTargets: true, slackApiUrl: receiver.url, telegramApiUrl: receiver.url, twilio: { apiUrl: receiver.url, accountSid: null, authToken: null, from: null }, smtp: { url: null, from: null } }),
  });
  // Acknowledged the way a member does (the one acknowledge path), which wakes the escalator.
  const incidents = createIncidentHandling({
    repo: createHandlingRepo(fx.db), timeline: createTimelineRepo(sqliteSql(fx.db).db), alerts: createAlertsRepo(fx.db), box: fx.box,
    linkKey: Buffer.alloc(32, 7), publicUrl: () => 'http://127.0.0.1', logger, onAcknowledged: () => alerting.acknowledged(),
  });
  alerting.start();
  const t0 = Date.now() - 60_000;
  const fail = (id: number, k: number) => httpResult(id, t0 + k * 10_000, { ok: false, status_code: 503, phase: 'http', error: 'HTTP 503' });
  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setTimeout(r, 2));
  };
  const first: number[] = [];
  const stopped: number[] = [];
  const threads = createThreadsRepo(sqliteSql(fx.db).db);
  for (const id of sample) {
    alerting.evaluate([fail(id, 0)]);
    const t = performance.now();
    alerting.evaluate([fail(id, 1)]);
    await until(() => firsts.has(id));
    first.push(firsts.get(id)! - t);
    const incidentId = fx.db.prepare('SELECT incident_id FROM incidents WHERE url_id = ? AND resolved_at IS NULL').pluck().get(id) as number;
    // The Slack root must be stored before its thread can be replied to.
    while (!(await threads.get(incidentId, slack))) await new Promise((r) => setTimeout(r, 2));
    const ta = performance.now();
    await incidents.acknowledge(fx.userId, incidentId, fx.userId);
    const n = endpointNo.get(id)!;
    await until(() => ackReplies.has(n));
    stopped.push(ackReplies.get(n)! - ta);
  }
  await alerting.stop();
  await receiver.close();
  fx.close();
  for (const [label, xs] of [['confirming result → first delivery (step 1)', first], ['acknowledgement → escalation ended, Slack told', stopped]] as const) {
    const s = [...xs].sort((a, b) => a - b);
    console.log(`with an escalation policy, ${label.padEnd(48)}: p50 ${pct(s, 50).toFixed(1)} ms, p99 ${pct(s, 99).toFixed(1)} ms (${xs.length} incidents)`);
  }
}

async function main(): Promise<void> {
  if (ESCALATION_ONLY) return escalation();
  console.log(`alerting benchmark: ${fmt(ENDPOINTS)} endpoints, ${fmt(TOTAL)} results per run in batches of ${BATCH}, ${WINDOW} in flight, embedded chDB`);
  // libchdb binds one data directory per process: both runs share it (their batch ids differ).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-alerting-'));
  const base = await ingest('ingest, no thresholds, no evaluation', false, false, dir);
  const withEval = await ingest('ingest + evaluation, 3 thresholds each', true, true, dir);
  console.log(`evaluation cost per result vs ingest's: ${((base.rate / withEval.evalRate!) * 100).toFixed(1)} %; ingest with evaluation vs without: ${(((base.rate - withEval.rate) / base.rate) * 100).toFixed(1)} % slower (chDB run-to-run noise included)`);
  rmSync(dir, { recursive: true, force: true });
  await latency();
  await escalation();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
