import type { Db } from './db';

export interface UserRow {
  id: number;
  username: string;
  email: string;
  password_hash: string;
  package_id: number;
  timezone: string;
  totp_secret_enc: string | null;
  totp_pending_secret_enc: string | null;
  two_factor_enabled: number;
  /** The TOTP time step of the last code accepted; a code is good only for a later step. */
  totp_last_step: number | null;
  /** 1 once the address is confirmed by a link (accounts made before verification existed count as confirmed). */
  email_verified: number;
  created_at: string;
}

export function createUsersRepo(db: Db) {
  const q = {
    byId: db.prepare('SELECT * FROM users WHERE id = ?'),
    byEmail: db.prepare('SELECT * FROM users WHERE lower(email) = lower(?)'),
    byUsername: db.prepare('SELECT * FROM users WHERE lower(username) = lower(?)'),
    insert: db.prepare('INSERT INTO users (username, email, password_hash, package_id, email_verified) VALUES (?, ?, ?, ?, ?)'),
    updateProfile: db.prepare('UPDATE users SET username = ?, email = ?, timezone = ? WHERE id = ?'),
    updatePassword: db.prepare('UPDATE users SET password_hash = ? WHERE id = ?'),
    setPackage: db.prepare('UPDATE users SET package_id = ? WHERE id = ?'),
    setPendingTotp: db.prepare('UPDATE users SET totp_pending_secret_enc = ? WHERE id = ?'),
    enableTotp: db.prepare('UPDATE users SET totp_secret_enc = totp_pending_secret_enc, totp_pending_secret_enc = NULL, two_factor_enabled = 1, totp_last_step = ? WHERE id = ?'),
    disableTotp: db.prepare('UPDATE users SET totp_secret_enc = NULL, totp_pending_secret_enc = NULL, two_factor_enabled = 0, totp_last_step = NULL WHERE id = ?'),
    claimTotpStep: db.prepare('UPDATE users SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)'),
    deleteCodes: db.prepare('DELETE FROM backup_codes WHERE user_id = ? AND pending = ?'),
    deleteAllCodes: db.prepare('DELETE FROM backup_codes WHERE user_id = ?'),
    insertCode: db.prepare('INSERT INTO backup_codes (user_id, code_hash, pending) VALUES (?, ?, 1)'),
    activateCodes: db.prepare('UPDATE backup_codes SET pending = 0 WHERE user_id = ? AND pending = 1'),
    useCode: db.prepare("UPDATE backup_codes SET used_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE user_id = ? AND code_hash = ? AND pending = 0 AND used_at IS NULL"),
    insertVerification: db.prepare('INSERT INTO email_verifications (token_hash, user_id, email, expires_at, session_id) VALUES (?, ?, ?, ?, ?)'),
    verification: db.prepare('SELECT * FROM email_verifications WHERE token_hash = ?'),
    useVerification: db.prepare('UPDATE email_verifications SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?'),
    dropVerifications: db.prepare('DELETE FROM email_verifications WHERE user_id = ? AND used_at IS NULL'),
    pendingEmail: db.prepare(`SELECT email FROM email_verifications WHERE user_id = ? AND used_at IS NULL AND expires_at > ?
      AND lower(email) <> (SELECT lower(email) FROM users WHERE id = ?) ORDER BY expires_at DESC LIMIT 1`).pluck(),
    setVerifiedEmail: db.prepare('UPDATE users SET email = ?, email_verified = 1 WHERE id = ?'),
    // A person's account: its own flag; a workspace's: its first owner's (its creator while they own it).
    accountVerified: db.prepare(`SELECT CASE WHEN u.kind = 'workspace' THEN
        (SELECT o.email_verified FROM workspace_members m JOIN users o ON o.id = m.user_id
          WHERE m.workspace_id = u.id AND m.role = 'owner' ORDER BY m.created_at, m.user_id LIMIT 1)
      ELSE u.email_verified END FROM users u WHERE u.id = ?`).pluck(),
    // People only (a workspace's account row is not a user); `workspaces`: "name (role)" of each one they are in.
    adminList: db.prepare(`SELECT u.id, u.username, u.email, p.package_name, u.two_factor_enabled, u.created_at,
        (SELECT COUNT(*) FROM endpoints e WHERE e.user_id = u.id) AS endpoints,
        (SELECT group_concat(w.name || ' #' || w.id || ' (' || m.role || ')', ', ') FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
          WHERE m.user_id = u.id) AS workspaces
      FROM users u JOIN packages p ON p.package_id = u.package_id WHERE u.kind = 'person' ORDER BY u.id`),
  };
  return {
    byId: (id: number) => q.byId.get(id) as UserRow | undefined,
    /** Whether the account's address is confirmed; a workspace inherits its first owner's. */
    accountVerified: (id: number): boolean => q.accountVerified.get(id) === 1,
    byEmail: (email: string) => q.byEmail.get(email) as UserRow | undefined,
    byUsername: (username: string) => q.byUsername.get(username) as UserRow | undefined,
    insert: (username: string, email: string, passwordHash: string, packageId: number, emailVerified = true): number =>
      Number(q.insert.run(username, email, passwordHash, packageId, emailVerified ? 1 : 0).lastInsertRowid),
    updateProfile: (id: number, username: string, email: string, timezone: string) => q.updateProfile.run(username, email, timezone, id),
    updatePassword: (id: number, hash: string) => q.updatePassword.run(hash, id),
    setPackage: (id: number, packageId: number) => q.setPackage.run(packageId, id),
    startTotpSetup: db.transaction((id: number, secretEnc: string, codeHashes: string[]) => {
      q.setPendingTotp.run(secretEnc, id);
      q.deleteCodes.run(id, 1);
      for (const h of codeHashes) q.insertCode.run(id, h);
    }),
    enableTotp: db.transaction((id: number, verifiedStep: number) => {
      q.deleteCodes.run(id, 0);
      q.activateCodes.run(id);
      q.enableTotp.run(verifiedStep, id);
    }),
    disableTotp: db.transaction((id: number) => {
      q.disableTotp.run(id);
      q.deleteAllCodes.run(id);
    }),
    /** Records a TOTP step as used; true only if it is later than every step used before. */
    claimTotpStep: (id: number, step: number): boolean => q.claimTotpStep.run(step, id, step).changes === 1,
    /** Marks a backup code used; true only the first time. */
    useBackupCode: (id: number, codeHash: string): boolean => q.useCode.run(id, codeHash).changes === 1,
    adminList: () => q.adminList.all() as Array<Record<string, unknown>>,
    /** A new verification link for `email` (the current address or a new one); earlier unused links end. */
    addVerification: db.transaction((userId: number, tokenHash: string, email: string, expiresAt: number, sessionId: string | null) => {
      q.dropVerifications.run(userId);
      q.insertVerification.run(tokenHash, userId, email, expiresAt, sessionId);
    }),
    verification: (tokenHash: string) =>
      q.verification.get(tokenHash) as { user_id: number; email: string; expires_at: number; used_at: number | null; session_id: string | null } | undefined,
    /** Marks a link used; false when it was used already or has expired. */
    useVerification: (tokenHash: string, at: number): boolean => q.useVerification.run(at, tokenHash, at).changes === 1,
    /** The new address waiting for its link, if any. */
    pendingEmail: (userId: number, at: number) => (q.pendingEmail.get(userId, at, userId) as string | undefined) ?? null,
    setVerifiedEmail: (userId: number, email: string) => q.setVerifiedEmail.run(email, userId),
  };
}
export type UsersRepo = ReturnType<typeof createUsersRepo>;
