// The users repo on both databases: case-insensitive lookups and uniqueness, the TOTP step and
// backup-code compare-and-sets, verification links, a workspace's verification through its first
// owner, and the operator's list.
import { sql as rawSql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { isUniqueViolation } from './sql/errors';
import { createUsersRepo } from './users-repo';

async function testPackage(db: ReturnType<ReturnType<typeof freshSql>>['db']): Promise<number> {
  await rawSql`INSERT INTO packages (package_name, price, max_endpoints, max_regions, check_frequency_seconds, retention_days, ssl_monitoring,
    advanced_alerts, api_access, multi_region, ping_host, cert_expiry, response_code, response_time)
    SELECT 'Test', 0, 10, 1, 300, 30, 0, 0, 0, 0, 0, 0, 1, 0 WHERE NOT EXISTS (SELECT 1 FROM packages WHERE package_name = 'Test')`.execute(db);
  return Number((await rawSql<{ id: number }>`SELECT package_id AS id FROM packages WHERE package_name = 'Test'`.execute(db)).rows[0].id);
}

describe.each(SQL_DIALECTS)('users repo on $title', (d) => {
  const sql = freshSql(d);

  it('finds a person by email or username in any case, and refuses the same address or name in another case', async () => {
    const users = createUsersRepo(sql().db);
    const pkg = await testPackage(sql().db);
    const id = await users.insert('Ann', 'Ann@Example.com', 'hash', pkg, false);
    expect(await users.byEmail('ann@example.COM')).toMatchObject({ id, username: 'Ann', email: 'Ann@Example.com', email_verified: 0, two_factor_enabled: 0, timezone: 'UTC' });
    expect((await users.byUsername('aNN'))?.id).toBe(id);
    expect(await users.byId(id + 1000)).toBeUndefined();
    const dupEmail = await users.insert('other', 'ANN@example.com', 'h', pkg).catch((e: unknown) => e);
    expect(isUniqueViolation(dupEmail)).toBe(true);
    const dupName = await users.insert('ann', 'else@example.com', 'h', pkg).catch((e: unknown) => e);
    expect(isUniqueViolation(dupName)).toBe(true);
    await users.updateProfile(id, 'Annie', 'annie@example.com', 'Europe/Berlin');
    await users.updatePassword(id, 'hash2');
    expect(await users.byId(id)).toMatchObject({ username: 'Annie', email: 'annie@example.com', timezone: 'Europe/Berlin', password_hash: 'hash2' });
  });

  it('accepts a TOTP step only when later than every one used, and each backup code once', async () => {
    const users = createUsersRepo(sql().db);
    const id = await users.insert('bob', 'bob@example.com', 'h', await testPackage(sql().db));
    await users.startTotpSetup(id, 'sealed-secret', ['c1', 'c2']);
    // Pending codes are not usable before the setup is confirmed.
    expect(await users.useBackupCode(id, 'c1')).toBe(false);
    await users.enableTotp(id, 100);
    expect(await users.byId(id)).toMatchObject({ two_factor_enabled: 1, totp_secret_enc: 'sealed-secret', totp_pending_secret_enc: null, totp_last_step: 100 });
    expect(await users.claimTotpStep(id, 100)).toBe(false);
    const raced = await Promise.all([users.claimTotpStep(id, 101), users.claimTotpStep(id, 101)]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await users.claimTotpStep(id, 99)).toBe(false);
    const codes = await Promise.all([users.useBackupCode(id, 'c1'), users.useBackupCode(id, 'c1')]);
    expect(codes.filter(Boolean)).toHaveLength(1);
    expect(await users.useBackupCode(id, 'c2')).toBe(true);
    await users.disableTotp(id);
    expect(await users.byId(id)).toMatchObject({ two_factor_enabled: 0, totp_secret_enc: null, totp_last_step: null });
    expect(Number((await rawSql<{ n: number }>`SELECT COUNT(*) AS n FROM backup_codes WHERE user_id = ${id}`.execute(sql().db)).rows[0].n)).toBe(0);
  });

  it('keeps one live verification link, uses it once before it expires, and tells a pending new address', async () => {
    const users = createUsersRepo(sql().db);
    const id = await users.insert('cy', 'cy@example.com', 'h', await testPackage(sql().db), false);
    await users.addVerification(id, 'old', 'cy@example.com', 5000, null);
    await users.addVerification(id, 'tok', 'New@Example.com', 5000, 'sess');
    expect(await users.verification('old')).toBeUndefined();
    expect(await users.verification('tok')).toEqual({ user_id: id, email: 'New@Example.com', expires_at: 5000, used_at: null, session_id: 'sess' });
    expect(await users.pendingEmail(id, 1000)).toBe('New@Example.com');
    expect(await users.pendingEmail(id, 6000)).toBeNull();
    expect(await users.useVerification('tok', 6000)).toBe(false);
    expect(await users.useVerification('tok', 2000)).toBe(true);
    expect(await users.useVerification('tok', 2001)).toBe(false);
    await users.setVerifiedEmail(id, 'New@Example.com');
    expect(await users.byId(id)).toMatchObject({ email: 'New@Example.com', email_verified: 1 });
    // A link for the current address (any case) is no pending change.
    await users.addVerification(id, 'same', 'new@example.com', 9000, null);
    expect(await users.pendingEmail(id, 1000)).toBeNull();
  });

  it('counts a workspace as verified when its first owner is, and lists people with their workspaces', async () => {
    const users = createUsersRepo(sql().db);
    const db = sql().db;
    const pkg = await testPackage(db);
    const owner = await users.insert('owner', 'owner@example.com', 'h', pkg, false);
    const later = await users.insert('later', 'later@example.com', 'h', pkg, true);
    const ws = Number((await rawSql<{ id: number }>`INSERT INTO users (username, email, password_hash, package_id, kind)
      VALUES ('ws', 'ws@workspace.invalid', '!', ${pkg}, 'workspace') RETURNING id`.execute(db)).rows[0].id);
    await rawSql`INSERT INTO workspaces (id, name, personal) VALUES (${ws}, 'Team', 0)`.execute(db);
    await rawSql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (${ws}, ${owner}, 'owner', '2026-01-01T00:00:00.000Z')`.execute(db);
    await rawSql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (${ws}, ${later}, 'owner', '2026-02-01T00:00:00.000Z')`.execute(db);
    expect(await users.accountVerified(ws)).toBe(false);
    expect(await users.accountVerified(later)).toBe(true);
    await users.setVerifiedEmail(owner, 'owner@example.com');
    expect(await users.accountVerified(ws)).toBe(true);
    expect(await users.accountVerified(ws + 1000)).toBe(false);
    const list = await users.adminList();
    expect(list.map((u) => u.username)).toEqual(['owner', 'later']);
    expect(list[0]).toMatchObject({ id: owner, email: 'owner@example.com', package_name: 'Test', two_factor_enabled: 0, endpoints: 0 });
    expect(list[0].workspaces).toBe(`Personal #${owner} (owner), Team #${ws} (owner)`);
    await users.setPackage(later, pkg);
    expect((await users.byId(later))?.package_id).toBe(pkg);
  });
});
