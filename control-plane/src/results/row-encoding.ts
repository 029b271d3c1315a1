// CheckResults (proto, as the agent sent them) → one RowBinary payload, columns in INSERT_COLUMNS
// order (columns.ts). ClickHouse reads RowBinary for a fraction of what any text format costs it (measured on
// chDB: ~30,000 CPU instructions per row to parse JSONCompactEachRow, TSV or CSV, ~7,000 for
// RowBinary; docs/scaling.md), and writing it here is cheaper than building JSON text.
// Numbers the agent could get wrong are made storable here (clamped, NaN → 0), never rejected.
import type { CheckResult } from '@upfleet/proto';
import { AppError } from '../errors';
import { clampRetentionDays, kindName } from '../checks';
import { screenshotId } from '../screenshots/screenshot-id';
import { INSERT_COLUMNS, INSERT_COLUMNS_BEFORE_STEP5 } from './columns';

// The columns and their order are defined in columns.ts (RESULT_COLUMNS); writeRow follows them
// (row-encoding.test.ts reads a row back by that table).
export { INSERT_COLUMNS };

/**
 * Formats an insert payload can be in: RowBinary with every column (`RowBinary5`, written now), or
 * what a ledger group recorded before may hold: RowBinary without schema step 5's columns, or
 * JSONCompactEachRow (older still).
 */
export type PayloadFormat = 'RowBinary5' | 'RowBinary' | 'JSONCompactEachRow';
export const PAYLOAD_FORMAT: PayloadFormat = 'RowBinary5';

/** ClickHouse's name of a payload's format and the columns its rows carry. */
export function payloadShape(format: PayloadFormat): { format: 'RowBinary' | 'JSONCompactEachRow'; columns: readonly string[] } {
  return format === 'RowBinary5' ? { format: 'RowBinary', columns: INSERT_COLUMNS } : { format, columns: INSERT_COLUMNS_BEFORE_STEP5 };
}

/** An insert body and its format. RowBinary bodies concatenate as they are (a merged insert is their concatenation). */
export interface Payload {
  body: Buffer;
  format: PayloadFormat;
}

const TWO_32 = 4_294_967_296;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const clamp = (n: number, lo: number, hi: number) => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo);
const num = (n: number) => (Number.isFinite(n) ? n : 0);
/** Fixed-size part of a row: 8 + 8 + 1 + 2 + 6×4 + 9 + 1 + 2 bytes, plus slack. */
const ROW_FIXED = 64;
/** Schema step 5's columns at their defaults: UInt16 0, '' (1), Float32 0 ×3, four empty arrays (1 each). */
const NO_BROWSER_BYTES = 2 + 1 + 12 + 4;

/** Appends RowBinary values to a growing buffer. */
class RowWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.buf[this.pos++] = v;
  }

  u16(v: number): void {
    this.buf[this.pos++] = v & 0xff;
    this.buf[this.pos++] = v >>> 8;
  }

  /** A 64-bit integer (two's complement) from a number within ±2^53. */
  i64(v: number): void {
    const hi = Math.floor(v / TWO_32);
    this.pos = this.buf.writeUInt32LE(v - hi * TWO_32, this.pos);
    this.pos = this.buf.writeInt32LE(hi, this.pos);
  }

  f32(v: number): void {
    this.pos = this.buf.writeFloatLE(v, this.pos);
  }

  f64(v: number): void {
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }

  /** An array's length (LEB128), before its elements. */
  len(n: number): void {
    this.ensure(5);
    let v = n;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }

  /** String: LEB128 byte length, then UTF-8 bytes. Short ASCII (nearly every string a result carries) is copied in a loop. */
  str(s: string | undefined): void {
    if (!s) {
      this.ensure(1);
      this.buf[this.pos++] = 0;
      return;
    }
    const n = s.length;
    if (n < 128) {
      this.ensure(n + 1);
      const b = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[start + i] = c;
      }
      if (i === n) {
        b[this.pos] = n;
        this.pos = start + n;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.ensure(len + 5);
    let v = len;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }
}

function writeRow(w: RowWriter, r: CheckResult, agentId: string): void {
  const kind = kindName(r.kind);
  if (!kind) throw new AppError('bad_request', `unknown check kind '${r.kind}'`);
  w.ensure(ROW_FIXED);
  w.i64(clamp(Math.trunc(r.ts_ms), -MAX_SAFE, MAX_SAFE)); // DateTime64(3): milliseconds
  w.i64(clamp(Math.trunc(num(r.endpoint_id)), 0, MAX_SAFE));
  w.str(kind);
  w.str(r.region);
  w.ensure(ROW_FIXED);
  w.u8(r.ok ? 1 : 0);
  w.str(r.phase);
  w.ensure(ROW_FIXED);
  w.u16(clamp(Math.trunc(r.status_code), 0, 65535));
  w.f32(num(r.dns_ms));
  w.f32(num(r.connect_ms));
  w.f32(num(r.tls_ms));
  w.f32(num(r.ttfb_ms));
  w.f32(num(r.total_ms));
  w.f32(num(r.cert_days_left));
  // Nullable: a 1 byte says NULL, a 0 byte is followed by the value.
  if (r.cert_not_after_ms > 0) {
    w.u8(0);
    w.i64(clamp(Math.trunc(r.cert_not_after_ms), 0, MAX_SAFE));
  } else w.u8(1);
  w.str(r.cert_issuer);
  w.str(r.cert_subject);
  w.str(r.ping_method);
  w.str(r.error);
  w.ensure(ROW_FIXED);
  w.u8(clamp(Math.trunc(r.redirects), 0, 255));
  w.u16(clampRetentionDays(r.retention_days));
  w.str(r.result_id);
  w.str(agentId);
  // Schema step 5: browser checks. Other kinds write the defaults (0, '', 0 ×3, four empty arrays),
  // which in RowBinary are all zero bytes: one fill instead of reading nine absent fields.
  if (r.kind !== 'CHECK_KIND_BROWSER') {
    w.ensure(NO_BROWSER_BYTES);
    w.buf.fill(0, w.pos, w.pos + NO_BROWSER_BYTES);
    w.pos += NO_BROWSER_BYTES;
    return;
  }
  w.ensure(ROW_FIXED);
  w.u16(clamp(Math.trunc(num(r.failed_step ?? 0)), 0, 65535));
  w.str(r.failed_action);
  w.ensure(ROW_FIXED);
  w.f32(num(r.dom_content_loaded_ms ?? 0));
  w.f32(num(r.load_ms ?? 0));
  w.f32(num(r.lcp_ms ?? 0));
  const steps = r.step_ms ?? [];
  w.len(steps.length);
  w.ensure(steps.length * 8);
  for (const ms of steps) w.f64(num(ms));
  strings(w, r.console_errors);
  strings(w, r.failed_requests);
  // The screenshots the store kept (services/ingest.ts leaves only those), by id; never their bytes.
  const shots = r.screenshots ?? [];
  w.len(shots.length);
  for (const s of shots) w.str(screenshotId(r.result_id, s.name));
}

function strings(w: RowWriter, list: readonly string[] | undefined): void {
  w.len(list?.length ?? 0);
  for (const s of list ?? []) w.str(s);
}

/** The insert body for a batch: its rows in RowBinary, INSERT_COLUMNS order. */
export function encodeRows(results: readonly CheckResult[], agentId: string): Buffer {
  const w = new RowWriter(results.length * 160 + 64);
  for (let i = 0; i < results.length; i++) writeRow(w, results[i], agentId);
  return w.buf.subarray(0, w.pos);
}
