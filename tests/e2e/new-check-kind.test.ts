// A new check kind is one entry in the kinds table (@upfleet/proto/check-kinds), its target parser
// and its prober: this test adds an `smtp` kind that exists nowhere else and follows it from the
// REST create to the assignment, a real prober run against an SMTP greeting on loopback, admission,
// the chDB store, the graph and the uptime; and checks an unknown kind fails loudly.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECK_KIND_TABLE, ENDPOINT_KIND_TABLE, type AssignedKind, type CheckKindSpec, type EndpointKindSpec, type KindName,
} from '@upfleet/proto/check-kinds';
import type { EndpointKind } from '@upfleet/proto/assertions';

const SMTP = 'CHECK_KIND_SMTP' as AssignedKind;

// Registered before the control plane's modules are loaded (the imports below are dynamic): the
// body schema and a few lists read the table once, when they load.
(CHECK_KIND_TABLE as Record<string, CheckKindSpec>)[SMTP] = {
  name: 'smtp' as KindName, wire: 99, graphs: { response_time: 'avg' }, uptime: 'ok', down: true, liveRank: 3,
  assignment: (c) => ({ target: c.target ?? '' }),
};
(ENDPOINT_KIND_TABLE as Record<string, EndpointKindSpec>).smtp = {
  label: 'SMTP',
  checks: [{ kind: SMTP, regions: 'all-or-primary' }],
  graphs: [{ fn: 'response_time' }],
  target: {
    field: 'target', label: 'Mail server', placeholder: 'mail.example.com:25', required: 'Target is required (host:port)',
    problems: (b) => (/^[a-z0-9.-]+:\d{1,5}$/i.test(b.target!) ? [] : [{ message: 'Target must be host:port', path: 'target' }]),
    stored: (b) => ({ url: `smtp://${b.target!.toLowerCase()}`, check: { kind: 'smtp' as EndpointKind, target: b.target!.toLowerCase() } }),
    publicTarget: () => null,
  },
  assertions: { refused: 'An smtp check has no assertions' },
  blank: { kind: 'smtp' as EndpointKind, target: '' },
};

const { startHarnessWithResults } = await import('../../control-plane/src/testing/harness');
const { createEndpointsRepo } = await import('../../control-plane/src/store/endpoints-repo');
const { checksForEndpoint } = await import('../../control-plane/src/services/check-placement');
const { createResultAdmission } = await import('../../control-plane/src/grpc/result-admission');
const { createCheckRunner } = await import('../../agent/src/run-check');
const { createHostResolver } = await import('../../agent/src/probers/resolve');
type Prober = import('../../agent/src/probers/prober').Prober;

/** The agent side of the new kind: connect, read the greeting, up when it is 220. */
const smtpProber: Prober = {
  kind: SMTP,
  failurePhase: 'connect',
  probe: (a, opts) => new Promise((resolve) => {
    const target = a.target ?? '';
    const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
    const started = performance.now();
    const socket = net.connect({ host, port, timeout: opts.timeoutMs });
    const done = (fields: Awaited<ReturnType<Prober['probe']>>) => { socket.destroy(); resolve(fields); };
    socket.once('data', (b) => {
      const ms = Math.max(1, Math.round(performance.now() - started));
      done(b.toString().startsWith('220') ? { ok: true, connect_ms: ms, total_ms: ms } : { ok: false, phase: 'connect', error: `greeting ${b.toString().trim()}` });
    });
    socket.once('error', (e) => done({ ok: false, phase: 'connect', error: e.message }));
    socket.once('timeout', () => done({ ok: false, phase: 'connect', error: 'timeout' }));
  }),
};

let h: Awaited<ReturnType<typeof startHarnessWithResults>>;
let token: string;
let mail: net.Server;
let mailPort: number;

beforeAll(async () => {
  h = await startHarnessWithResults();
  const a = await h.signup('smtp_kind');
  await h.setPackage(a.user.email, 'Pro');
  token = a.token;
  mail = net.createServer((s) => s.end('220 mail.test ESMTP ready\r\n'));
  await new Promise<void>((r) => mail.listen(0, '127.0.0.1', () => r()));
  mailPort = (mail.address() as net.AddressInfo).port;
}, 120_000);
afterAll(async () => {
  mail?.close();
  await h?.close();
});

describe('a kind added to the kinds table alone', () => {
  it('flows from create to an assignment, a prober run, a stored result, a graph and the uptime', async () => {
    const created = await h.call('POST', '/api/users/endpoints', { name: 'Mail', kind: 'smtp', target: `LOCALHOST:${mailPort}`, regions: ['EU-Germany'] }, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ kind: 'smtp', target: `localhost:${mailPort}`, url: `smtp://localhost:${mailPort}` });
    const id: number = created.body.data.url_id;
    // its target parser is the API's 400, and nothing is stored
    const bad = await h.call('POST', '/api/users/endpoints', { name: 'Bad', kind: 'smtp', target: 'no port', regions: ['EU-Germany'] }, token);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: 'Target must be host:port' });

    const [assignment, ...more] = checksForEndpoint(createEndpointsRepo(h.cp.db).monitoredById(id)!, 'EU-Germany');
    expect(more).toEqual([]);
    expect(assignment).toMatchObject({ check_id: `${id}:smtp:EU-Germany`, kind: SMTP, target: `localhost:${mailPort}`, region: 'EU-Germany' });

    const run = createCheckRunner({ resolver: createHostResolver(), allowPrivateTargets: true, probers: [smtpProber] });
    const result = await run(assignment);
    expect(result).toMatchObject({ ok: true, kind: SMTP, endpoint_id: id });

    const admit = createResultAdmission({ assignedTo: (_agent, _region, checkId) => (checkId === assignment.check_id ? assignment : null) });
    const { rows, rejectedCount } = admit({ agentId: 'agent-smtp', region: 'EU-Germany' }, [result]);
    expect(rejectedCount).toBe(0);
    await h.store.insertBatch(`smtp-${id}`, 'agent-smtp', rows);

    const graph = await h.call('GET', `/api/graphs/endpoint/${id}?hours=1`, undefined, token);
    expect(graph.status, JSON.stringify(graph.body)).toBe(200);
    expect(graph.body.data.graphs).toEqual([
      expect.objectContaining({ function: 'response_time', location: 'EU-Germany', data: [[expect.any(Number), result.total_ms]] }),
    ]);
    const listed = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token);
    expect(listed.body.data.find((e: { url_id: number }) => e.url_id === id)).toMatchObject({ uptime_percentage: 100 });
  });

  it('fails loudly on a kind the table does not know: 400 at the API, an error where checks are placed', async () => {
    const r = await h.call('POST', '/api/users/endpoints', { name: 'Gopher', kind: 'gopher', target: 'x:70', regions: ['EU-Germany'] }, token);
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    const created = await h.call('POST', '/api/users/endpoints', { name: 'Mail 2', kind: 'smtp', target: `mail.example.com:25`, regions: ['EU-Germany'] }, token);
    const monitored = createEndpointsRepo(h.cp.db).monitoredById(created.body.data.url_id)!;
    expect(() => checksForEndpoint({ ...monitored, kind: 'gopher' as EndpointKind }, 'EU-Germany')).toThrow(/unknown endpoint kind "gopher"/);
  });
});
