// DNS check against a real DNS server on loopback UDP started by the test (dns-packet encodes and
// decodes the wire format): each record type, assertions on the answer, NXDOMAIN, no records,
// SERVFAIL, a silent server (timeout) and a private resolver refused when private targets are denied.
import dgram from 'node:dgram';
import dnsPacket, { type Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment, AssertionSpec } from '@upfleet/proto';
import { createHostResolver } from '../resolve';
import type { ProberOptions } from '../prober';
import { dnsProber } from './index';

const ZONE: Record<string, Answer[]> = {
  'example.test:A': [{ type: 'A', name: 'example.test', ttl: 60, data: '93.184.216.34' }, { type: 'A', name: 'example.test', ttl: 60, data: '93.184.216.35' }],
  'example.test:AAAA': [{ type: 'AAAA', name: 'example.test', ttl: 60, data: '2606:2800:220:1::1' }],
  'www.example.test:CNAME': [{ type: 'CNAME', name: 'www.example.test', ttl: 60, data: 'example.test' }],
  'example.test:MX': [{ type: 'MX', name: 'example.test', ttl: 60, data: { preference: 10, exchange: 'mail.example.test' } }],
  'example.test:TXT': [{ type: 'TXT', name: 'example.test', ttl: 60, data: ['v=spf1 -all'] }],
  'example.test:NS': [{ type: 'NS', name: 'example.test', ttl: 60, data: 'ns1.example.test' }],
};

let server: dgram.Socket;
let port: number;
let queries: string[] = [];
beforeAll(async () => {
  server = dgram.createSocket('udp4');
  server.on('message', (msg, rinfo) => {
    const q = dnsPacket.decode(msg);
    const question = q.questions![0];
    queries.push(`${question.name}:${question.type}`);
    if (question.name === 'silent.example.test') return; // never answers
    const answers = ZONE[`${question.name}:${question.type}`];
    const known = Object.keys(ZONE).some((k) => k.startsWith(`${question.name}:`));
    const rcode = question.name === 'broken.example.test' ? 'SERVFAIL' : answers || known ? 'NOERROR' : 'NXDOMAIN';
    const reply = dnsPacket.encode({
      type: 'response', id: q.id, flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (rcode === 'SERVFAIL' ? 2 : rcode === 'NXDOMAIN' ? 3 : 0),
      questions: q.questions, answers: answers ?? [],
    });
    server.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => server.bind(0, '127.0.0.1', r));
  port = (server.address()).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const opts: ProberOptions = { timeoutMs: 1000, resolver: createHostResolver(), allowPrivateTargets: true };
const dns = (target: string, record_type: string, assertions: AssertionSpec[] = []): Assignment => ({
  check_id: '4:dns:EU-Germany', endpoint_id: 4, kind: 'CHECK_KIND_DNS', url: `dns://${target}/${record_type}`, target, record_type,
  resolver: `127.0.0.1:${port}`, assertions, interval_seconds: 60, timeout_ms: 1000, region: 'EU-Germany', retention_days: 30,
});
const answer = (comparison: string, target: string): AssertionSpec => ({ source: 'answer', property: '', comparison, target });

describe('dns check against a local DNS server', () => {
  it.each([
    ['A', 'example.test', '93.184.216.35'],
    ['AAAA', 'example.test', '2606:2800:220:1::1'],
    ['CNAME', 'www.example.test', 'example.test'],
    ['MX', 'example.test', '10 mail.example.test'],
    ['TXT', 'example.test', 'v=spf1 -all'],
    ['NS', 'example.test', 'ns1.example.test'],
  ])('looks up %s records from the named resolver and asserts on the answer', async (type, name, expected) => {
    queries = [];
    const r = await dnsProber.probe(dns(name, type, [answer('contains', expected)]), opts);
    expect(r).toMatchObject({ ok: true, phase: '', error: '' });
    expect(r.total_ms).toBeGreaterThan(0);
    expect(queries).toContain(`${name}:${type}`);
  });

  it('equals compares the whole answer (records one per line)', async () => {
    expect(await dnsProber.probe(dns('example.test', 'A', [answer('equals', '93.184.216.34\n93.184.216.35')]), opts)).toMatchObject({ ok: true });
  });

  it('a failing assertion is down with the reason', async () => {
    expect(await dnsProber.probe(dns('example.test', 'A', [answer('contains', '10.0.0.1')]), opts)).toMatchObject({
      ok: false, phase: 'assertion', error: 'answer does not contain "10.0.0.1"',
    });
    expect(await dnsProber.probe(dns('example.test', 'MX', [answer('not_contains', 'mail.example.test')]), opts)).toMatchObject({
      ok: false, phase: 'assertion', error: 'answer contains "mail.example.test"',
    });
  });

  it('NXDOMAIN, no records of the type and SERVFAIL are down in phase dns', async () => {
    expect(await dnsProber.probe(dns('missing.example.test', 'A'), opts)).toMatchObject({ ok: false, phase: 'dns', error: 'A missing.example.test: name not found (NXDOMAIN)' });
    expect(await dnsProber.probe(dns('www.example.test', 'MX'), opts)).toMatchObject({ ok: false, phase: 'dns', error: 'MX www.example.test: no records of this type' });
    expect(await dnsProber.probe(dns('broken.example.test', 'A'), opts)).toMatchObject({ ok: false, phase: 'dns', error: 'A broken.example.test: server failure (SERVFAIL)' });
  });

  it('times out when the server does not answer', async () => {
    const r = await dnsProber.probe(dns('silent.example.test', 'A'), { ...opts, timeoutMs: 400 });
    expect(r.ok).toBe(false);
    expect(['timeout', 'dns']).toContain(r.phase);
  });

  it('asks the control plane\'s default resolvers, not the system\'s, when the check names none', async () => {
    queries = [];
    const r = await dnsProber.probe({ ...dns('example.test', 'TXT', [answer('contains', 'v=spf1')]), resolver: '', default_resolvers: [`127.0.0.1:${port}`] }, { ...opts, allowPrivateTargets: false });
    expect(r).toMatchObject({ ok: true, phase: '', error: '' });
    expect(queries).toEqual(['example.test:TXT']);
  });

  it('refuses a private resolver when private targets are denied', async () => {
    const r = await dnsProber.probe(dns('example.test', 'A'), { ...opts, allowPrivateTargets: false });
    expect(r).toMatchObject({ ok: false, phase: 'connect' });
    expect(r.error).toMatch(/not allowed|private/);
  });
});
