// The hand-tuned RowBinary writer follows the column table: a row is read back by RESULT_COLUMNS'
// types alone, and each column holds the CheckResult field the table says it comes from.
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '@upfleet/proto';
import { INSERT_COLUMNS, RESULT_COLUMNS } from './columns';
import { encodeRows } from './row-encoding';
import { screenshotId } from '../screenshots/screenshot-id';

function readRow(buf: Buffer): Record<string, unknown> {
  let pos = 0;
  const i64 = () => {
    const v = Number(buf.readBigInt64LE(pos));
    pos += 8;
    return v;
  };
  const str = () => {
    let len = 0;
    let shift = 0;
    for (;;) {
      const b = buf[pos++];
      len |= (b & 0x7f) << shift;
      if (b < 0x80) break;
      shift += 7;
    }
    const s = buf.toString('utf8', pos, pos + len);
    pos += len;
    return s;
  };
  const read = (type: string): unknown => {
    if (type.startsWith('Nullable(')) return buf[pos++] === 1 ? null : read(type.slice(9, -1));
    if (type.startsWith('Array(')) {
      let n = 0;
      let shift = 0;
      for (;;) {
        const b = buf[pos++];
        n |= (b & 0x7f) << shift;
        if (b < 0x80) break;
        shift += 7;
      }
      return Array.from({ length: n }, () => read(type.slice(6, -1)));
    }
    if (type === 'Float64') return (pos += 8, buf.readDoubleLE(pos - 8));
    if (type.startsWith('DateTime64') || type === 'UInt64') return i64();
    if (type.includes('String')) return str();
    if (type === 'UInt8') return buf[pos++];
    if (type === 'UInt16') return (pos += 2, buf.readUInt16LE(pos - 2));
    if (type === 'Float32') return (pos += 4, buf.readFloatLE(pos - 4));
    throw new Error(`no reader for ${type}`);
  };
  const row = Object.fromEntries(RESULT_COLUMNS.map((c) => [c.name, read(c.type)]));
  expect(pos, 'the whole payload is one row').toBe(buf.length);
  return row;
}

describe('encodeRows', () => {
  it('writes the columns of RESULT_COLUMNS in order, each from its CheckResult field', () => {
    const r: CheckResult = {
      check_id: '7:browser:EU-Germany', endpoint_id: 7, kind: 'CHECK_KIND_BROWSER', region: 'EU-Germany', ts_ms: 1_760_000_000_123, ok: true,
      phase: 'tls', error: 'späte Warnung', status_code: 204, dns_ms: 1.5, connect_ms: 2.5, tls_ms: 3.5, ttfb_ms: 4.5, total_ms: 5.5,
      cert_days_left: 42.25, cert_not_after_ms: 1_770_000_000_000, cert_issuer: 'CA', cert_subject: 'CN=site', ping_method: 'icmp',
      redirects: 3, retention_days: 90, result_id: 'r-1',
      failed_step: 2, failed_action: 'click', dom_content_loaded_ms: 120.5, load_ms: 300.25, lcp_ms: 410, step_ms: [12.5, 3000.125],
      console_errors: ['TypeError: x', 'ü'], failed_requests: ['GET https://a.example/x.js net::ERR_FAILED'],
      screenshots: [{ name: 'failure', mime: 'image/png', data: Buffer.alloc(0), step: 2 }],
    };
    const row = readRow(encodeRows([r], 'agent-9'));
    expect(Object.keys(row)).toEqual(INSERT_COLUMNS);
    const expected: Record<string, unknown> = { kind: 'browser', ok: 1, agent_id: 'agent-9', screenshot_ids: [screenshotId('r-1', 'failure')] };
    for (const c of RESULT_COLUMNS) {
      const want = c.name in expected ? expected[c.name] : r[c.from as keyof CheckResult];
      expect(row[c.name], c.name).toEqual(want);
    }
  });

  it('writes defaults for the browser columns of another kind\'s result, whatever it carries', () => {
    const r: CheckResult = {
      check_id: '7:http:EU-Germany', endpoint_id: 7, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: 1_760_000_000_123, ok: true,
      phase: '', error: '', status_code: 200, dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 0, total_ms: 5, cert_days_left: 0,
      cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: 30, result_id: 'r-2',
      failed_step: 3, console_errors: ['not a browser check'],
    };
    const row = readRow(encodeRows([r], 'a'));
    expect([row.failed_step, row.failed_action, row.step_ms, row.console_errors, row.failed_requests, row.screenshot_ids]).toEqual([0, '', [], [], [], []]);
  });
});
