import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_BROWSER_FIELDS, type CheckResult } from '@upfleet/proto';
import { openAgentDb } from './agent-db';
import { createOutbox, type Outbox } from './sqlite-outbox';

const dirs: string[] = [];
type OpenOutbox = Outbox & { close(): void };
const open: OpenOutbox[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'upfleet-outbox-'));
  dirs.push(d);
  return d;
}
function openAt(dataDir: string, cap = 1000): OpenOutbox {
  const db = openAgentDb({ dataDir });
  const o = Object.assign(createOutbox(db, { cap }), { close: () => { if (db.open) db.close(); } });
  open.push(o);
  return o;
}
afterEach(() => {
  for (const o of open.splice(0)) o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let n = 0;
function result(over: Partial<CheckResult> = {}): CheckResult {
  n++;
  return {
    check_id: '1:CHECK_KIND_HTTP:EU-Germany', endpoint_id: 1, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany',
    ts_ms: 1_700_000_000_000 + n, ok: true, phase: '', error: '', status_code: 200, dns_ms: 0, connect_ms: 1,
    tls_ms: 0, ttfb_ms: 1, total_ms: 2, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '',
    ping_method: '', redirects: 0, retention_days: 30, result_id: `r${n}`, ...NO_BROWSER_FIELDS, ...over,
  };
}
const ids = (b: { results: CheckResult[] } | undefined): string[] => b?.results.map((r) => r.result_id) ?? [];

describe('sqlite outbox', () => {
  it('hands out the oldest rows in batches and deletes them when acked', () => {
    const o = openAt(tempDir());
    const rs = Array.from({ length: 5 }, () => result());
    o.add(rs);
    expect(o.depth()).toBe(5);
    const b1 = o.takeBatch(3)!;
    const b2 = o.takeBatch(3)!;
    expect(ids(b1)).toEqual(rs.slice(0, 3).map((r) => r.result_id));
    expect(ids(b2)).toEqual(rs.slice(3).map((r) => r.result_id));
    expect(b1.results[0]).toEqual(rs[0]);
    expect(o.takeBatch(3)).toBeUndefined();
    expect(o.ack(b1.batch_id)).toBe(3);
    expect(o.depth()).toBe(2);
    expect(o.ack(b1.batch_id)).toBe(0); // a second ack of the same batch is harmless
  });

  it('gives a released batch out again with the same id and rows', () => {
    const o = openAt(tempDir());
    o.add([result(), result()]);
    const b = o.takeBatch(10)!;
    o.add([result()]);
    o.release(b.batch_id);
    const again = o.takeBatch(10)!;
    expect(again).toEqual(b);
  });

  it('keeps rows, batch ids and batch contents across a reopen (a killed agent re-sends the same batch)', () => {
    const dir = tempDir();
    const o = openAt(dir);
    o.add(Array.from({ length: 7 }, () => result()));
    const b1 = o.takeBatch(4)!;
    const b2 = o.takeBatch(4)!;
    o.close();

    const reopened = openAt(dir);
    expect(reopened.depth()).toBe(7);
    expect(reopened.unbatched()).toBe(0);
    expect(reopened.takeBatch(100)).toEqual(b1);
    expect(reopened.takeBatch(100)).toEqual(b2);
    reopened.add([result()]);
    const b3 = reopened.takeBatch(100)!;
    expect(b3.results).toHaveLength(1);
    expect([b1.batch_id, b2.batch_id]).not.toContain(b3.batch_id);
  });

  it('drops the oldest rows beyond the cap and keeps the dropped count across a reopen', () => {
    const dir = tempDir();
    const o = openAt(dir, 5);
    const rs = Array.from({ length: 8 }, () => result());
    for (const r of rs) o.add([r]);
    expect(o.depth()).toBe(5);
    expect(o.dropped()).toBe(3);
    expect(ids(o.takeBatch(100))).toEqual(rs.slice(3).map((r) => r.result_id));
    o.close();
    const reopened = openAt(dir, 5);
    expect(reopened.dropped()).toBe(3);
    expect(reopened.depth()).toBe(5);
  });

  it('drops rows out of an unsent batch but keeps its id for the rest', () => {
    const o = openAt(tempDir(), 4);
    const rs = Array.from({ length: 4 }, () => result());
    o.add(rs);
    const b = o.takeBatch(3)!;
    o.release(b.batch_id);
    o.add([result(), result()]); // two oldest go
    const again = o.takeBatch(10)!;
    expect(again.batch_id).toBe(b.batch_id);
    expect(ids(again)).toEqual([rs[2].result_id]);
    expect(o.dropped()).toBe(2);
    expect(o.depth()).toBe(4);
  });

  it('forgets a batch whose rows were all dropped', () => {
    const o = openAt(tempDir(), 2);
    o.add([result(), result()]);
    const b = o.takeBatch(2)!;
    o.release(b.batch_id);
    const newer = [result(), result()];
    o.add(newer);
    const next = o.takeBatch(10)!;
    expect(next.batch_id).not.toBe(b.batch_id);
    expect(ids(next)).toEqual(newer.map((r) => r.result_id));
  });
});
