// The hand-written ResultBatch decoder gives exactly what @grpc/proto-loader gives for the same bytes.
import { describe, expect, it } from 'vitest';
import { loadAgentService, type ResultBatch } from '@upfleet/proto';
import { decodeResultBatch } from './result-batch-decoder';

const method = loadAgentService().service.ReportResults;
const encode = (b: unknown) => method.requestSerialize(b);
const reference = (buf: Buffer) => method.requestDeserialize(buf) as ResultBatch;

describe('decodeResultBatch', () => {
  it('matches proto-loader on full, empty, extreme and non-ASCII results', () => {
    const batch = {
      batch_id: 'b-ü-1',
      results: [
        {
          check_id: '42:http:EU-Germany', endpoint_id: 42, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: 1_763_900_000_123,
          ok: true, phase: '', error: 'said "no"\n ✓', status_code: 503, dns_ms: 1.25, connect_ms: 3.5, tls_ms: 0, ttfb_ms: 40.125,
          total_ms: 50.5, cert_days_left: -2.5, cert_not_after_ms: 1_800_000_000_000, cert_issuer: 'R11', cert_subject: 'CN=ëxample',
          ping_method: 'icmp', redirects: 3, retention_days: 365, result_id: 'r-1',
        },
        {},
        {
          check_id: '43:browser:EU-Germany', kind: 'CHECK_KIND_BROWSER', ok: false, phase: 'step', error: 'step 2 (click #go): timeout', failed_step: 2, failed_action: 'click',
          dom_content_loaded_ms: 120.5, load_ms: 300.25, lcp_ms: 410, step_ms: [12.5, 3000], console_errors: ['TypeError: x is undefined', 'ü'],
          failed_requests: ['GET https://a.example/x.js net::ERR_FAILED'], screenshots: [{ name: 'failure', mime: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]), step: 2 }, { name: 'cart' }],
        },
        { endpoint_id: 2 ** 53 - 1, ts_ms: -1, cert_not_after_ms: -1_700_000_000_000, kind: 'CHECK_KIND_PING', status_code: 4_294_967_295, total_ms: Number.NaN },
        { kind: 'CHECK_KIND_TLS', ts_ms: 2 ** 40 + 7, endpoint_id: 2 ** 35 + 3, dns_ms: Infinity },
      ],
    };
    const buf = encode(batch);
    expect(decodeResultBatch(buf)).toEqual(reference(buf));
  });

  it('matches proto-loader on an empty batch and on many results', () => {
    expect(decodeResultBatch(encode({}))).toEqual(reference(encode({})));
    const many = {
      batch_id: 'x',
      results: Array.from({ length: 500 }, (_, i) => ({
        check_id: `${i}:tls`, endpoint_id: i + 1, kind: ['CHECK_KIND_HTTP', 'CHECK_KIND_TLS', 'CHECK_KIND_PING'][i % 3], region: 'US-Virginia',
        ts_ms: 1_700_000_000_000 + i * 997, ok: i % 2 === 0, total_ms: i / 7, redirects: i % 5, retention_days: i, result_id: `r${i}`,
      })),
    };
    const buf = encode(many);
    expect(decodeResultBatch(buf)).toEqual(reference(buf));
  });

  it('gives every repeated short string right, however many share the intern table (more strings than slots)', () => {
    const batch = (offset: number) => ({
      batch_id: `many-${offset}`,
      results: Array.from({ length: 20_000 }, (_, i) => ({
        check_id: `${(i + offset) % 20_000}:http:EU-Germany`, region: i % 2 ? 'US-Virginia' : 'EU-Ger', phase: i % 3 ? '' : 'connect',
        error: i % 5 ? '' : `HTTP ${500 + (i % 7)}`, cert_issuer: i % 4 ? 'R11' : 'R1', cert_subject: `CN=h${i % 300}.example`,
        ping_method: i % 2 ? 'icmp' : 'tcp', result_id: `r${i}`, endpoint_id: i,
      })),
    });
    for (const offset of [0, 7, 0]) {
      const buf = encode(batch(offset));
      expect(decodeResultBatch(buf)).toEqual(reference(buf));
    }
  });

  it('skips fields it does not know and refuses truncated bytes', () => {
    // Field 99 (varint) and field 98 (bytes) before the batch id: unknown to this version.
    const extra = Buffer.concat([Buffer.from([0x98, 0x06, 0x05, 0x92, 0x06, 0x02, 0x61, 0x62]), encode({ batch_id: 'k', results: [{ endpoint_id: 7 }] })]);
    expect(decodeResultBatch(extra)).toEqual(reference(extra));
    const whole = encode({ batch_id: 'k', results: [{ endpoint_id: 7, error: 'long enough error text' }] });
    expect(() => decodeResultBatch(whole.subarray(0, whole.length - 5))).toThrow();
  });
});
