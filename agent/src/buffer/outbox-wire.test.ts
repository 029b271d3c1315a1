// The outbox keeps what it sends: each result's wire bytes, a batch being its id and those bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeResultBatch, loadAgentService, NO_BROWSER_FIELDS, type CheckResult } from '@upfleet/proto';
import { openAgentDb } from './agent-db';
import { createOutbox } from './sqlite-outbox';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function db() {
  const dir = mkdtempSync(path.join(tmpdir(), 'upfleet-outbox-wire-'));
  dirs.push(dir);
  return openAgentDb({ dataDir: dir });
}
const result = (i: number): CheckResult => ({
  check_id: `${i}:http:EU-Germany`, endpoint_id: i, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: 1_760_000_000_000 + i, ok: true,
  phase: '', error: 'ünïcode', status_code: 200, dns_ms: 1.5, connect_ms: 2.25, tls_ms: 0, ttfb_ms: 9.125, total_ms: 12.5, cert_days_left: 0,
  cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 1, retention_days: 90, result_id: `r${i}`, ...NO_BROWSER_FIELDS,
});

describe('outbox batches on the wire', () => {
  it('sends the stored bytes: they are exactly what the gRPC serializer makes of the batch', () => {
    const d = db();
    const o = createOutbox(d, { cap: 100 });
    const rs = [1, 2, 3].map(result);
    o.add(rs);
    const b = o.takeBatch(10)!;
    const plain = loadAgentService().service.ReportResults;
    expect(plain.requestSerialize(b)).toBe(b.encoded); // passed through, not encoded again
    expect(decodeResultBatch(b.encoded)).toEqual({ batch_id: b.batch_id, results: rs });
    d.close();
  });

  it('still sends rows an earlier agent version stored as JSON text', () => {
    const d = db();
    createOutbox(d, { cap: 100 });
    d.prepare('INSERT INTO results (result_id, payload) VALUES (?, ?)').run('r7', JSON.stringify(result(7)));
    const o = createOutbox(d, { cap: 100 });
    o.add([result(8)]);
    const b = o.takeBatch(10)!;
    expect(decodeResultBatch(b.encoded).results).toEqual([result(7), result(8)]);
    d.close();
  });
});
