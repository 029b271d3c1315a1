import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_KIND_TABLE, ENDPOINT_KIND_TABLE, checkKindByName, endpointKindSpec, featureKind, kindName } from './check-kinds';
import { ENDPOINT_KINDS } from './assertions';
import { FEATURES } from './rest';
import { PROTO_PATH } from './index';

describe('the kinds table', () => {
  it('gives every proto kind its enum number as written in agent_service.proto', () => {
    const proto = readFileSync(PROTO_PATH, 'utf8');
    const numbers = new Map([...proto.matchAll(/(CHECK_KIND_[A-Z]+)\s*=\s*(\d+);/g)].map((m) => [m[1], Number(m[2])]));
    expect([...numbers.keys()].filter((k) => k !== 'CHECK_KIND_UNSPECIFIED').sort()).toEqual(Object.keys(CHECK_KIND_TABLE).sort());
    for (const [kind, spec] of Object.entries(CHECK_KIND_TABLE)) expect([kind, spec.wire]).toEqual([kind, numbers.get(kind)]);
  });

  it('names every kind once, and finds it back by its name', () => {
    const names = Object.values(CHECK_KIND_TABLE).map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const [kind, spec] of Object.entries(CHECK_KIND_TABLE)) {
      expect(kindName(kind)).toBe(spec.name);
      expect(checkKindByName(spec.name)).toBe(spec);
    }
    expect(kindName('CHECK_KIND_UNSPECIFIED')).toBeNull();
  });

  it('has an entry for every endpoint kind, each yielding only kinds of the check table', () => {
    expect(Object.keys(ENDPOINT_KIND_TABLE).sort()).toEqual([...ENDPOINT_KINDS].sort());
    for (const spec of Object.values(ENDPOINT_KIND_TABLE)) for (const c of spec.checks) expect(Object.keys(CHECK_KIND_TABLE)).toContain(c.kind);
    expect(() => endpointKindSpec('gopher')).toThrow('unknown endpoint kind "gopher"');
  });

  it('judges each feature threshold on the kind that runs it', () => {
    expect(Object.fromEntries(FEATURES.map((f) => [f, featureKind(f)]))).toEqual({ response_time: 'http', response_code: 'http', ping_host: 'ping', cert_expiry: 'tls' });
  });

  it('parses and stores each target kind as the API answers it', () => {
    const tcp = ENDPOINT_KIND_TABLE.tcp.target;
    const dns = ENDPOINT_KIND_TABLE.dns.target;
    if (tcp.field !== 'target' || dns.field !== 'target') throw new Error('tcp and dns have targets');
    expect(tcp.problems({ target: 'db.example.com' })).toEqual([{ message: 'Target must be host:port with a port from 1 to 65535', path: 'target' }]);
    expect(tcp.stored({ target: 'DB.example.com:5432' })).toEqual({ url: 'tcp://db.example.com:5432', check: { kind: 'tcp', target: 'db.example.com:5432' } });
    expect(dns.stored({ target: 'Example.com.', record_type: 'MX', resolver: '1.1.1.1' })).toEqual({
      url: 'dns://1.1.1.1:53/example.com/MX', check: { kind: 'dns', target: 'example.com', record_type: 'MX', resolver: '1.1.1.1:53' },
    });
  });
});
