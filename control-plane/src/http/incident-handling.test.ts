// Over HTTP on the real control plane: acknowledging an incident (roles, the compare-and-set, 409s,
// workspace scoping, the audit log), its timeline, the list's state and filters, and MTTA/MTTR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { ALREADY_ACKNOWLEDGED, RESOLVED_CANNOT_ACK } from '../alerting/handling';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

type Person = Awaited<ReturnType<Harness['signup']>>;
const inWs = (ws: number) => ({ 'x-workspace-id': String(ws) });

/** A team workspace with an owner, an editor and a viewer (invited and accepted over the API). */
async function team() {
  const owner = await h.signup();
  const editor = await h.signup();
  const viewer = await h.signup();
  const ws = (await h.call('POST', '/api/workspaces', { name: 'On call' }, owner.token)).body.data.id as number;
  const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
  await h.setPackage(list.find((w) => w.id === ws)!.account_email, 'Pro'); // members beyond the owner
  for (const [who, role] of [[editor, 'editor'], [viewer, 'viewer']] as const) {
    const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: who.user.email, role }, owner.token);
    const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
    expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, who.token)).status).toBe(200);
  }
  return { owner, editor, viewer, ws };
}

async function endpoint(p: Person, ws: number, name: string): Promise<number> {
  const r = await h.call('POST', '/api/users/endpoints', { name, url: `https://${name.toLowerCase()}.example.com/` }, p.token, inWs(ws));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.url_id;
}

function incident(ws: number, urlId: number, at: { opened: number; acked?: number; ackedBy?: number; resolved?: number }, cause = 'HTTP 503 from EU - Germany'): number {
  return Number(h.cp.db.prepare(`INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at, acknowledged_at, acknowledged_by, resolved_at)
    VALUES (?, ?, 'down', '["EU - Germany"]', ?, ?, ?, ?, ?)`).run(ws, urlId, cause, at.opened, at.acked ?? null, at.ackedBy ?? null, at.resolved ?? null).lastInsertRowid);
}

const row = (id: number) => h.cp.db.prepare('SELECT acknowledged_at, acknowledged_by, resolved_at FROM incidents WHERE incident_id = ?').get(id);

describe('POST /api/users/incidents/{id}/acknowledge', () => {
  it('records who and when for an editor, once: a second try and a resolved incident answer 409 and change nothing', async () => {
    const t = await team();
    const e = await endpoint(t.owner, t.ws, 'Shop');
    const open = incident(t.ws, e, { opened: Date.now() - 60_000 });
    const before = Date.now();
    const r = await h.call('POST', `/api/users/incidents/${open}/acknowledge`, undefined, t.editor.token, inWs(t.ws));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      incident_id: open, state: 'acknowledged', endpoint_name: 'Shop',
      acknowledged_by: { user_id: t.editor.user.id, name: t.editor.user.username, email: t.editor.user.email, via: 'app' },
    });
    expect(Date.parse(r.body.data.acknowledged_at)).toBeGreaterThanOrEqual(before - 1000);
    const stored = row(open);

    const again = await h.call('POST', `/api/users/incidents/${open}/acknowledge`, undefined, t.owner.token, inWs(t.ws));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: ALREADY_ACKNOWLEDGED });
    expect(row(open)).toEqual(stored);

    const resolved = incident(t.ws, e, { opened: 1000, resolved: 5000 });
    const late = await h.call('POST', `/api/users/incidents/${resolved}/acknowledge`, undefined, t.editor.token, inWs(t.ws));
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ success: false, error: RESOLVED_CANNOT_ACK });
    expect(RESOLVED_CANNOT_ACK).toBe("A resolved incident can't be acknowledged");
    expect(row(resolved)).toEqual({ acknowledged_at: null, acknowledged_by: null, resolved_at: 5000 });

    const log = await h.call('GET', `/api/workspaces/${t.ws}/audit-log?action=incident`, undefined, t.owner.token);
    expect(log.body.data).toEqual([expect.objectContaining({ action: 'incident.acknowledge', member_id: t.editor.user.id, target_id: String(open) })]);
  });

  it('refuses a viewer (403) and another workspace (404), changing nothing; a bad id is 404', async () => {
    const t = await team();
    const e = await endpoint(t.owner, t.ws, 'Api');
    const id = incident(t.ws, e, { opened: Date.now() });
    const viewer = await h.call('POST', `/api/users/incidents/${id}/acknowledge`, undefined, t.viewer.token, inWs(t.ws));
    expect(viewer.status).toBe(403);
    expect(viewer.body).toEqual({ success: false, error: MESSAGES.roleNotAllowed('viewer') });
    const stranger = await h.signup();
    const other = await h.call('POST', `/api/users/incidents/${id}/acknowledge`, undefined, stranger.token);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ success: false, error: 'Incident not found' });
    // the editor's own personal workspace is not this one either
    expect((await h.call('POST', `/api/users/incidents/${id}/acknowledge`, undefined, t.editor.token)).status).toBe(404);
    expect((await h.call('GET', `/api/users/incidents/${id}`, undefined, stranger.token)).status).toBe(404);
    for (const bad of ['abc', '0', '-1']) expect((await h.call('POST', `/api/users/incidents/${bad}/acknowledge`, undefined, t.editor.token, inWs(t.ws))).status).toBe(404);
    expect(row(id)).toEqual({ acknowledged_at: null, acknowledged_by: null, resolved_at: null });
    // the viewer still reads it
    expect((await h.call('GET', `/api/users/incidents/${id}`, undefined, t.viewer.token, inWs(t.ws))).body.data.state).toBe('open');
  });
});

describe('GET /api/users/incidents/{id}', () => {
  it('answers the timeline in order: opened, deliveries (secrets masked), escalation entries, acknowledged by, resolved', async () => {
    const owner = await h.signup();
    const e = await endpoint(owner, owner.user.id, 'Billing');
    const hook = 'https://hooks.example.com/services/very-secret-path-wxyz';
    const m = (await h.call('POST', '/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: hook } }, owner.token)).body.data.alert_method_id;
    const id = incident(owner.user.id, e, { opened: 10_000, acked: 70_000, ackedBy: owner.user.id, resolved: 200_000 });
    const ins = h.cp.db.prepare(`INSERT INTO alert_deliveries (user_id, alert_method_id, incident_id, event, idempotency_key, payload, status, attempts, next_attempt_at, last_error, created_at, delivered_at, step)
      VALUES (?, ?, ?, ?, ?, '{}', ?, ?, 0, ?, ?, ?, ?)`);
    ins.run(owner.user.id, m, id, 'opened', `k-open-${id}`, 'failed', 3, `POST ${hook} answered 500`, 10_000, null, 1);
    ins.run(owner.user.id, m, id, 'resolved', `k-res-${id}`, 'delivered', 1, null, 200_000, 201_000, null);
    h.cp.db.prepare('INSERT INTO incident_events (incident_id, at, type, step, alert_method_id, detail) VALUES (?, ?, ?, ?, ?, ?)').run(id, 40_000, 'escalated', 2, m, 'to step 2');
    h.cp.db.prepare('INSERT INTO incident_events (incident_id, at, type, step, alert_method_id, detail) VALUES (?, ?, ?, ?, ?, ?)').run(id, 50_000, 'reminder', 2, null, 'repeat 1 of 3');

    const r = await h.call('GET', `/api/users/incidents/${id}`, undefined, owner.token);
    expect(r.status).toBe(200);
    const tl = r.body.data.timeline as Array<Record<string, any>>;
    expect(tl.map((x) => x.type)).toEqual(['opened', 'delivery', 'escalated', 'reminder', 'acknowledged', 'delivery', 'resolved']);
    expect(tl[0]).toMatchObject({ at: new Date(10_000).toISOString(), detail: 'HTTP 503 from EU - Germany' });
    expect(tl[1]).toMatchObject({ platform: 'webhook', alert_method_id: m, step: 1, delivery: { status: 'failed', attempts: 3, event: 'opened' } });
    expect(tl[1].delivery.last_error).toBe(`POST https://hooks.example.com/${'•'.repeat(hook.length - 'https://hooks.example.com/'.length - 4)}wxyz answered 500`);
    expect(JSON.stringify(r.body)).not.toContain('very-secret-path');
    expect(tl[2]).toMatchObject({ type: 'escalated', step: 2, alert_method_id: m, platform: 'webhook', detail: 'to step 2' });
    expect(tl[3]).toMatchObject({ type: 'reminder', step: 2, alert_method_id: null, platform: null, detail: 'repeat 1 of 3' });
    expect(tl[4]).toMatchObject({ type: 'acknowledged', at: new Date(70_000).toISOString(), by: { user_id: owner.user.id, name: owner.user.username, email: owner.user.email, via: 'app' } });
    expect(tl[5]).toMatchObject({ delivery: { status: 'delivered', event: 'resolved', delivered_at: new Date(201_000).toISOString() } });
    expect(tl[6]).toMatchObject({ type: 'resolved', at: new Date(200_000).toISOString() });
    expect(r.body.data).toMatchObject({ state: 'resolved', endpoint_name: 'Billing', acknowledged_at: new Date(70_000).toISOString() });
  });
});

describe('GET /api/users/incidents', () => {
  it('gains state and who acknowledged, filters by state and url_id (keeping endpoint_id and status), and rejects a bad state', async () => {
    const t = await team();
    const a = await endpoint(t.owner, t.ws, 'Alpha');
    const b = await endpoint(t.owner, t.ws, 'Beta');
    const c = await endpoint(t.owner, t.ws, 'Gamma');
    const open = incident(t.ws, a, { opened: 3000 });
    const acked = incident(t.ws, c, { opened: 2000, acked: 2500, ackedBy: t.editor.user.id });
    const resolved = incident(t.ws, b, { opened: 1000, acked: 1100, resolved: 1500 });
    const get = async (q: string) => {
      const r = await h.call('GET', `/api/users/incidents${q}`, undefined, t.viewer.token, inWs(t.ws));
      expect(r.status, `${q} ${JSON.stringify(r.body)}`).toBe(200);
      return r.body.data as Array<Record<string, any>>;
    };
    const all = await get('');
    expect(all.map((i) => [i.incident_id, i.state])).toEqual([[open, 'open'], [acked, 'acknowledged'], [resolved, 'resolved']]);
    expect(all[1]).toMatchObject({ acknowledged_at: new Date(2500).toISOString(), acknowledged_by: { user_id: t.editor.user.id, name: t.editor.user.username, via: 'app' }, endpoint_name: 'Gamma' });
    expect(all[0]).toMatchObject({ acknowledged_at: null, acknowledged_by: null });
    // acknowledged through a message's link: no member
    expect(all[2].acknowledged_by).toEqual({ user_id: null, name: null, email: null, via: 'link' });
    expect((await get('?state=open')).map((i) => i.incident_id)).toEqual([open]);
    expect((await get('?state=acknowledged')).map((i) => i.incident_id)).toEqual([acked]);
    expect((await get('?state=resolved')).map((i) => i.incident_id)).toEqual([resolved]);
    expect((await get('?status=open')).map((i) => i.incident_id)).toEqual([open, acked]);
    expect((await get(`?url_id=${b}`)).map((i) => i.incident_id)).toEqual([resolved]);
    expect((await get(`?endpoint_id=${a}&state=open`)).map((i) => i.incident_id)).toEqual([open]);
    expect(await get(`?url_id=${c}&state=open`)).toEqual([]);
    expect((await get('?state=&url_id=')).length).toBe(3);
    // another workspace sees none of them
    const stranger = await h.signup();
    expect((await h.call('GET', `/api/users/incidents?url_id=${a}`, undefined, stranger.token)).body.data).toEqual([]);
    for (const q of ['state=closed', 'url_id=abc', 'url_id=0']) {
      const r = await h.call('GET', `/api/users/incidents?${q}`, undefined, t.viewer.token, inWs(t.ws));
      expect(r.status, q).toBe(400);
      expect(r.body.success).toBe(false);
    }
  });
});

describe('GET /api/users/incidents/stats', () => {
  it('answers incidents, MTTA over the acknowledged and MTTR over the resolved per endpoint, in seconds, within the range', async () => {
    const owner = await h.signup();
    const a = await endpoint(owner, owner.user.id, 'Alpha');
    const b = await endpoint(owner, owner.user.id, 'Beta');
    const T = Date.parse('2026-03-01T00:00:00Z');
    const ws = owner.user.id;
    // Alpha: acked after 60 s and 120 s (MTTA 90 s); resolved after 300 s and 600 s (MTTR 450 s); one still open.
    incident(ws, a, { opened: T, acked: T + 60_000, resolved: T + 300_000 });
    incident(ws, a, { opened: T + 3600_000, acked: T + 3600_000 + 120_000, resolved: T + 3600_000 + 600_000 });
    incident(ws, a, { opened: T + 7200_000 });
    // Beta: never acknowledged, resolved after 30.5 s.
    incident(ws, b, { opened: T + 1000, resolved: T + 31_500 });
    // Outside the range: not counted.
    incident(ws, a, { opened: T - 1, acked: T + 10_000_000, resolved: T + 10_000_000 });
    incident(ws, b, { opened: T + 86_400_000, resolved: T + 86_400_000 + 1 });

    const q = `from=${encodeURIComponent('2026-03-01T00:00:00Z')}&to=${T + 86_400_000}`;
    const r = await h.call('GET', `/api/users/incidents/stats?${q}`, undefined, owner.token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual({
      from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z',
      endpoints: [
        { url_id: a, endpoint_name: 'Alpha', incidents: 3, acknowledged: 2, resolved: 2, mtta_seconds: 90, mttr_seconds: 450 },
        { url_id: b, endpoint_name: 'Beta', incidents: 1, acknowledged: 0, resolved: 1, mtta_seconds: null, mttr_seconds: 30.5 },
      ],
    });
    const one = await h.call('GET', `/api/users/incidents/stats?${q}&url_id=${b}`, undefined, owner.token);
    expect(one.body.data.endpoints.map((s: any) => s.url_id)).toEqual([b]);
    const stranger = await h.signup();
    expect((await h.call('GET', `/api/users/incidents/stats?${q}`, undefined, stranger.token)).body.data.endpoints).toEqual([]);
    for (const bad of ['from=yesterday', `from=${T + 10}&to=${T}`, 'url_id=x']) {
      const res = await h.call('GET', `/api/users/incidents/stats?${bad}`, undefined, owner.token);
      expect(res.status, bad).toBe(400);
      expect(res.body.success).toBe(false);
    }
  });
});

describe('POST /api/users/incidents/acknowledge', () => {
  it('acknowledges the open incidents of the workspace among incident_ids in one go and says why it skipped the others', async () => {
    const t = await team();
    const ids: number[] = [];
    for (const name of ['One', 'Two', 'Three']) ids.push(incident(t.ws, await endpoint(t.owner, t.ws, name), { opened: Date.now() - 30_000 }));
    const resolved = incident(t.ws, await endpoint(t.owner, t.ws, 'Four'), { opened: 1000, resolved: 2000 });
    const stranger = await h.signup();
    const theirs = incident(stranger.user.id, await endpoint(stranger, stranger.user.id, 'Theirs'), { opened: Date.now() });
    const r = await h.call('POST', '/api/users/incidents/acknowledge', { incident_ids: [...ids, resolved, theirs, ids[0]] }, t.editor.token, inWs(t.ws));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual({
      acknowledged: ids,
      skipped: [{ incident_id: resolved, reason: RESOLVED_CANNOT_ACK }, { incident_id: theirs, reason: 'Incident not found' }],
    });
    for (const id of ids) expect(row(id)).toMatchObject({ acknowledged_by: t.editor.user.id });
    expect(row(theirs)).toEqual({ acknowledged_at: null, acknowledged_by: null, resolved_at: null });
    const again = await h.call('POST', '/api/users/incidents/acknowledge', { incident_ids: [ids[1]] }, t.owner.token, inWs(t.ws));
    expect(again.body.data).toEqual({ acknowledged: [], skipped: [{ incident_id: ids[1], reason: ALREADY_ACKNOWLEDGED }] });
    expect((await h.call('GET', `/api/users/incidents/${ids[2]}`, undefined, t.viewer.token, inWs(t.ws))).body.data.timeline.map((e: any) => e.type)).toEqual(['opened', 'acknowledged']);
  });

  it('refuses a viewer and a bad body with nothing changed', async () => {
    const t = await team();
    const id = incident(t.ws, await endpoint(t.owner, t.ws, 'Solo'), { opened: Date.now() });
    expect((await h.call('POST', '/api/users/incidents/acknowledge', { incident_ids: [id] }, t.viewer.token, inWs(t.ws))).status).toBe(403);
    for (const body of [{}, { incident_ids: [] }, { incident_ids: ['x'] }, { incident_ids: [0] }, { incident_ids: Array.from({ length: 101 }, (_, i) => i + 1) }]) {
      const r = await h.call('POST', '/api/users/incidents/acknowledge', body, t.editor.token, inWs(t.ws));
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toEqual({ success: false, error: expect.any(String) });
    }
    expect(row(id)).toEqual({ acknowledged_at: null, acknowledged_by: null, resolved_at: null });
  });
});
