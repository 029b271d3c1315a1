// The workspaces repo on both databases (SQLite and Postgres): workspaces, members and roles,
// invitations, the audit log and the operator's list.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createWorkspacesRepo } from './workspaces-repo';

describe.each(SQL_DIALECTS)('workspaces repo on $title', (d) => {
  const s = freshSql(d);
  const DAY = 86400_000;

  async function setup() {
    const repo = createWorkspacesRepo(s().db);
    const ann = await insertTestUser(s());
    const bob = await insertTestUser(s());
    const pkg = (await s().db.selectFrom('packages').select('package_id').where('package_name', '=', 'Test').executeTakeFirstOrThrow()).package_id;
    const ws = await repo.create('Acme', ann, pkg);
    return { repo, ann, bob, pkg, ws };
  }
  const apiKey = (workspaceId: number, createdBy: number, hash: string) =>
    sql`INSERT INTO api_keys (user_id, name, prefix, key_hash, created_by) VALUES (${workspaceId}, 'k', 'p', ${hash}, ${createdBy})`.execute(s().db);
  const apiKeyHashes = async () => (await s().db.selectFrom('api_keys').select('id').execute()).length;

  it('creates a workspace with its own account and its creator as owner; a person sees their personal one first', async () => {
    const { repo, ann, ws } = await setup();
    expect(ws).not.toBe(ann);
    expect(await repo.get(ws)).toMatchObject({ id: ws, name: 'Acme', personal: 0 });
    expect(await repo.role(ws, ann)).toBe('owner');
    expect((await repo.forUser(ann)).map((w) => [w.id, w.name, w.personal, w.role])).toEqual([[ann, 'Personal', 1, 'owner'], [ws, 'Acme', 0, 'owner']]);
    expect(await repo.ownedCount(ann)).toBe(1);
    await repo.rename(ws, 'Acme Ltd');
    expect((await repo.get(ws))?.name).toBe('Acme Ltd');
    expect(await repo.get(ws + 1000)).toBeUndefined();
    expect(await repo.role(ws + 1000, ann)).toBeUndefined();
  });

  it('adds members once, changes roles and counts owners; removing a member drops their keys and pending invitations here only', async () => {
    const { repo, ann, bob, ws } = await setup();
    await repo.addMember(ws, bob, 'editor');
    await expect(repo.addMember(ws, bob, 'viewer')).rejects.toThrow();
    expect(await repo.role(ws, bob)).toBe('editor');
    expect((await repo.members(ws)).map((m) => [m.user_id, m.role])).toEqual([[ann, 'owner'], [bob, 'editor']]);
    expect(await repo.memberCount(ws)).toBe(2);
    expect(await repo.ownerCount(ws)).toBe(1);
    expect(await repo.setRole(ws, bob, 'owner')).toBe(true);
    expect(await repo.ownerCount(ws)).toBe(2);
    expect(await repo.setRole(ws, bob + 1000, 'owner')).toBe(false);
    await repo.setRole(ws, bob, 'admin');
    await apiKey(ws, bob, 'k1');
    await apiKey(bob, bob, 'k2'); // in bob's own workspace: stays
    await apiKey(ws, ann, 'k3');
    await repo.insertInvitation(ws, 'c@example.com', 'viewer', 'inv-by-bob', bob, 1000, 1000 + DAY);
    await repo.insertInvitation(ws, 'd@example.com', 'viewer', 'inv-by-ann', ann, 1000, 1000 + DAY);
    expect(await repo.removeMember(ws, bob)).toBe(true);
    expect(await repo.removeMember(ws, bob)).toBe(false);
    expect(await repo.role(ws, bob)).toBeUndefined();
    expect(await apiKeyHashes()).toBe(2);
    expect((await repo.pendingInvitations(ws, 2000)).map((i) => i.token_hash)).toEqual(['inv-by-ann']);
  });

  it('keeps invitations pending until used or expired, accepts one once (also when two accept at once), and revokes only pending ones of the workspace', async () => {
    const { repo, ann, bob, ws } = await setup();
    const id = await repo.insertInvitation(ws, 'Bob@Example.com', 'viewer', 'h1', ann, 1000, 1000 + DAY);
    await repo.insertInvitation(ws, 'old@example.com', 'editor', 'h2', ann, 0, 500);
    await expect(repo.insertInvitation(ws, 'x@example.com', 'viewer', 'h1', ann, 1000, 1000 + DAY)).rejects.toThrow();
    const inv = await repo.invitationByHash('h1');
    expect(inv).toEqual({ id, workspace_id: ws, email: 'Bob@Example.com', role: 'viewer', token_hash: 'h1', invited_by: ann, created_at: 1000, expires_at: 1000 + DAY, accepted_at: null });
    expect((await repo.pendingInvitations(ws, 2000)).map((i) => i.id)).toEqual([id]);
    expect(await repo.pendingCount(ws, 2000)).toBe(1);
    const both = await Promise.all([repo.acceptInvitation(inv!, bob, 2000), repo.acceptInvitation(inv!, bob, 2000)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(await repo.role(ws, bob)).toBe('viewer');
    expect((await repo.invitationByHash('h1'))?.accepted_at).toBe(2000);
    expect(await repo.pendingCount(ws, 2000)).toBe(0);
    // Used and expired invitations cannot be accepted; an expired one is no longer pending.
    expect(await repo.acceptInvitation(inv!, bob, 3000)).toBe(false);
    expect(await repo.acceptInvitation((await repo.invitationByHash('h2'))!, bob, 3000)).toBe(false);
    // Accepting as someone already a member keeps their role.
    await repo.insertInvitation(ws, 'ann@example.com', 'viewer', 'h3', bob, 1000, 1000 + DAY);
    expect(await repo.acceptInvitation((await repo.invitationByHash('h3'))!, ann, 2000)).toBe(true);
    expect(await repo.role(ws, ann)).toBe('owner');
    // Revoking: not a used one, not another workspace's.
    expect(await repo.deleteInvitation(ws, id)).toBe(false);
    const pending = await repo.insertInvitation(ws, 'e@example.com', 'viewer', 'h4', ann, 1000, 1000 + DAY);
    expect(await repo.deleteInvitation(ann, pending)).toBe(false);
    expect(await repo.deleteInvitation(ws, pending)).toBe(true);
    expect(await repo.invitationByHash('h4')).toBeUndefined();
    // A demoted member's pending invitations go.
    await repo.insertInvitation(ws, 'f@example.com', 'viewer', 'h5', bob, 1000, 1000 + DAY);
    expect(await repo.dropInvitationsBy(ws, bob)).toBe(1);
  });

  it('deletes a team workspace with everything it owns, never a person', async () => {
    const { repo, ann, bob, ws } = await setup();
    await repo.addMember(ws, bob, 'viewer');
    await repo.insertInvitation(ws, 'c@example.com', 'viewer', 'h1', ann, 1000, 1000 + DAY);
    await repo.insertAudit({ workspaceId: ws, at: 1000, memberId: ann, memberName: 'ann', action: 'member.add', targetId: String(bob), summary: '', clientAddress: '' });
    await sql`INSERT INTO endpoints (guid, user_id, name, url) VALUES ('g1', ${ws}, 'E', 'https://e.example.com/')`.execute(s().db);
    expect(await repo.endpointIds(ws)).toHaveLength(1);
    expect(await repo.delete(ann)).toBe(false);
    expect(await repo.get(ann)).toBeDefined();
    expect(await repo.delete(ws)).toBe(true);
    expect(await repo.get(ws)).toBeUndefined();
    expect(await repo.role(ws, bob)).toBeUndefined();
    expect(await repo.invitationByHash('h1')).toBeUndefined();
    expect(await repo.endpointIds(ws)).toEqual([]);
    expect((await repo.auditPage(ws, { limit: 10, offset: 0 })).total).toBe(0);
    expect(await repo.delete(ws)).toBe(false);
  });

  it('pages the audit log newest first, filters by member and by action or action family, and purges old entries', async () => {
    const { repo, ann, bob, ws } = await setup();
    const entry = (at: number, memberId: number, action: string) =>
      repo.insertAudit({ workspaceId: ws, at, memberId, memberName: `m${memberId}`, action, targetId: null, summary: `s${at}`, clientAddress: '127.0.0.1' });
    await entry(1000, ann, 'endpoint.create');
    await entry(2000, bob, 'endpoint.delete');
    await entry(3000, ann, 'status_page.create');
    await entry(4000, ann, 'endpoints.export');
    await entry(5000, bob, 'member.role_change');
    await repo.insertAudit({ workspaceId: ann, at: 6000, memberId: ann, memberName: 'x', action: 'endpoint.create', targetId: null, summary: '', clientAddress: '' });
    const page = await repo.auditPage(ws, { limit: 2, offset: 1 });
    expect(page.total).toBe(5);
    expect(page.items.map((e) => e.at)).toEqual([4000, 3000]);
    expect(page.items[0]).toMatchObject({ member_id: ann, member_name: `m${ann}`, action: 'endpoints.export', target_id: null, summary: 's4000', client_address: '127.0.0.1' });
    const actions = async (f: { memberId?: number; action?: string }) => (await repo.auditPage(ws, { ...f, limit: 50, offset: 0 })).items.map((e) => e.action);
    expect(await actions({ action: 'endpoint' })).toEqual(['endpoint.delete', 'endpoint.create']);
    expect(await actions({ action: 'endpoint.' })).toEqual(['endpoint.delete', 'endpoint.create']);
    expect(await actions({ action: 'endpoint.create' })).toEqual(['endpoint.create']);
    expect(await actions({ action: 'status_page' })).toEqual(['status_page.create']);
    expect(await actions({ action: 'ENDPOINT' })).toEqual([]);
    expect(await actions({ memberId: bob })).toEqual(['member.role_change', 'endpoint.delete']);
    expect(await actions({ memberId: bob, action: 'member' })).toEqual(['member.role_change']);
    expect(await repo.purgeAudit(2500)).toBe(2);
    expect((await repo.auditPage(ws, { limit: 50, offset: 0 })).total).toBe(3);
  });

  it("lists every workspace for the operator with its plan, account address, member and endpoint counts and first owner", async () => {
    const { repo, ann, bob, ws } = await setup();
    await repo.addMember(ws, bob, 'owner');
    await sql`INSERT INTO endpoints (guid, user_id, name, url) VALUES ('g1', ${ws}, 'E', 'https://e.example.com/'), ('g2', ${ws}, 'F', 'https://f.example.com/')`.execute(s().db);
    const list = await repo.adminList();
    expect(list.map((w) => w.id)).toEqual([ann, bob, ws].sort((a, b) => a - b));
    const acme = list.find((w) => w.id === ws)!;
    expect(acme).toMatchObject({ name: 'Acme', personal: 0, package_name: 'Test', members: 2, endpoints: 2 });
    expect(acme.account_email).toMatch(/^ws-[a-z0-9]+@workspaces\.invalid$/);
    const annEmail = (await s().db.selectFrom('users').select('email').where('id', '=', ann).executeTakeFirstOrThrow()).email;
    expect(acme.owner_email).toBe(annEmail);
    expect(list.find((w) => w.id === bob)).toMatchObject({ personal: 1, members: 1, endpoints: 0, account_email: expect.stringContaining('@example.com') });
  });
});
