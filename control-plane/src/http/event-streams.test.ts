// Live-event streams over HTTP on the real control plane: the cap counts per person (over every
// workspace) and per API key, a new stream past it closes the holder's oldest, so no member can lock
// the others out; revoking a key ends its streams at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_STREAMS_PER_USER } from '../services/events';
import { startHarness, type Harness } from '../testing/harness';
import { openSse, type SseStream } from '../../../tests/helpers/sse';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const opened: SseStream[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});

async function open(token: string, workspace?: number): Promise<SseStream> {
  const s = await openSse(`${h.cp.url}/api/users/events`, { authorization: `Bearer ${token}`, ...(workspace ? { 'x-workspace-id': String(workspace) } : {}) });
  opened.push(s);
  return s;
}
/** 'ended' when the server closes the stream within `ms`, else 'open'. */
const within = (s: SseStream, ms: number) => Promise.race([s.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('open'), ms))]);

async function workspaceWith(owner: { token: string }, plan: string, members: Array<{ token: string; user: { email: string } }>): Promise<number> {
  const ws = (await h.call('POST', '/api/workspaces', { name: `Live ${Math.random()}` }, owner.token)).body.data.id as number;
  const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
  await h.setPackage(list.find((w) => w.id === ws)!.account_email, plan);
  for (const m of members) {
    const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: m.user.email, role: 'viewer' }, owner.token);
    const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
    expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, m.token)).status).toBe(200);
  }
  return ws;
}

describe('event streams are limited per person and per API key, not per workspace', () => {
  it('a viewer holding the cap does not lock the owner out; the viewer\'s next stream closes their oldest', async () => {
    const owner = await h.signup();
    const viewer = await h.signup();
    const ws = await workspaceWith(owner, 'Starter', [viewer]);
    const mine: SseStream[] = [];
    for (let i = 0; i < EVENT_STREAMS_PER_USER; i++) mine.push(await open(viewer.token, ws));
    expect(mine.map((s) => s.status)).toEqual(mine.map(() => 200));
    const owners = await open(owner.token, ws);
    expect(owners.status).toBe(200);
    const more = await open(viewer.token, ws);
    expect(more.status).toBe(200);
    expect(await within(mine[0], 5_000)).toBe('ended');
    expect(await within(mine[1], 300)).toBe('open');
    expect(await within(owners, 300)).toBe('open');
  });

  it('one account holds at most the cap over every workspace it is in', async () => {
    const owner = await h.signup();
    const spaces = [undefined, await workspaceWith(owner, 'Free', []), await workspaceWith(owner, 'Free', [])]; // personal, and two it made
    const streams: SseStream[] = [];
    for (let i = 0; i < EVENT_STREAMS_PER_USER + 4; i++) streams.push(await open(owner.token, spaces[i % spaces.length]));
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const states = await Promise.all(streams.map((s, i) => within(s, i < 4 ? 5_000 : 300)));
    expect(states.filter((x) => x === 'open')).toHaveLength(EVENT_STREAMS_PER_USER);
    expect(states.slice(0, 4)).toEqual(['ended', 'ended', 'ended', 'ended']);
  });
});

describe('revoking an API key', () => {
  it('ends the streams it opened at once; the owner\'s own session stream goes on', async () => {
    const owner = await h.signup();
    await h.setPackage(owner.user.email, 'Pro');
    const key = await h.call('POST', '/api/users/api-keys', { name: 'live' }, owner.token);
    expect(key.status).toBe(201);
    const keyed = await open(key.body.data.key);
    const session = await open(owner.token);
    expect([keyed.status, session.status]).toEqual([200, 200]);
    expect(await within(keyed, 300)).toBe('open');
    expect((await h.call('DELETE', `/api/users/api-keys/${key.body.data.id}`, undefined, owner.token)).status).toBe(200);
    expect(await within(keyed, 5_000)).toBe('ended');
    expect(await within(session, 300)).toBe('open');
    // and the key opens no new one
    expect((await fetch(`${h.cp.url}/api/users/events`, { headers: { authorization: `Bearer ${key.body.data.key}` } })).status).toBe(401);
  });
});
