// People's accounts (and workspaces' account rows): profile, password, two-factor and backup codes,
// email verification links. Kysely, so the same code runs on SQLite and on Postgres
// (users-repo.test.ts runs it on both). Lookups by email and username ignore case on both, as the
// unique indexes on lower(email) and lower(username) do.
import type { Kysely } from 'kysely';
import type { Schema } from './sql/schema';
import { inTransaction } from './sql/transaction';

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

export interface VerificationRow { user_id: number; email: string; expires_at: number; used_at: number | null; session_id: string | null }

/** A person in the operator's list; `workspaces`: "name #id (role)" of each one they are in. */
export interface AdminUserRow {
  id: number;
  username: string;
  email: string;
  package_name: string;
  two_factor_enabled: number;
  created_at: string;
  endpoints: number;
  workspaces: string | null;
}

export function createUsersRepo(db: Kysely<Schema>) {
  const changed = (r: { numUpdatedRows: bigint }) => Number(r.numUpdatedRows) === 1;
  return {
    byId: (id: number): Promise<UserRow | undefined> => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    /** Whether the account's address is confirmed; a workspace inherits its first owner's (its creator while they own it). */
    accountVerified: async (id: number): Promise<boolean> => {
      const u = await db.selectFrom('users').select(['kind', 'email_verified']).where('id', '=', id).executeTakeFirst();
      if (!u) return false;
      if (u.kind !== 'workspace') return u.email_verified === 1;
      const owner = await db.selectFrom('workspace_members as m').innerJoin('users as o', 'o.id', 'm.user_id').select('o.email_verified')
        .where('m.workspace_id', '=', id).where('m.role', '=', 'owner').orderBy('m.created_at').orderBy('m.user_id').limit(1)
        .executeTakeFirst();
      return owner?.email_verified === 1;
    },
    byEmail: (email: string): Promise<UserRow | undefined> =>
      db.selectFrom('users').selectAll().where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)]))).executeTakeFirst(),
    byUsername: (username: string): Promise<UserRow | undefined> =>
      db.selectFrom('users').selectAll().where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(username)]))).executeTakeFirst(),
    /** A new person; a taken email or username (any case) fails with a unique violation (isUniqueViolation). */
    insert: async (username: string, email: string, passwordHash: string, packageId: number, emailVerified = true): Promise<number> =>
      Number((await db.insertInto('users')
        .values({ username, email, password_hash: passwordHash, package_id: packageId, email_verified: emailVerified ? 1 : 0 })
        .returning('id').executeTakeFirstOrThrow()).id),
    updateProfile: async (id: number, username: string, email: string, timezone: string): Promise<void> => {
      await db.updateTable('users').set({ username, email, timezone }).where('id', '=', id).execute();
    },
    updatePassword: async (id: number, hash: string): Promise<void> => {
      await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
    },
    setPackage: async (id: number, packageId: number): Promise<void> => {
      await db.updateTable('users').set({ package_id: packageId }).where('id', '=', id).execute();
    },
    startTotpSetup: (id: number, secretEnc: string, codeHashes: string[]): Promise<void> =>
      inTransaction(db, async (trx) => {
        await trx.updateTable('users').set({ totp_pending_secret_enc: secretEnc }).where('id', '=', id).execute();
        await trx.deleteFrom('backup_codes').where('user_id', '=', id).where('pending', '=', 1).execute();
        if (codeHashes.length > 0) await trx.insertInto('backup_codes').values(codeHashes.map((h) => ({ user_id: id, code_hash: h, pending: 1 }))).execute();
      }),
    enableTotp: (id: number, verifiedStep: number): Promise<void> =>
      inTransaction(db, async (trx) => {
        await trx.deleteFrom('backup_codes').where('user_id', '=', id).where('pending', '=', 0).execute();
        await trx.updateTable('backup_codes').set({ pending: 0 }).where('user_id', '=', id).where('pending', '=', 1).execute();
        await trx.updateTable('users')
          .set((eb) => ({ totp_secret_enc: eb.ref('totp_pending_secret_enc'), totp_pending_secret_enc: null, two_factor_enabled: 1, totp_last_step: verifiedStep }))
          .where('id', '=', id).execute();
      }),
    disableTotp: (id: number): Promise<void> =>
      inTransaction(db, async (trx) => {
        await trx.updateTable('users').set({ totp_secret_enc: null, totp_pending_secret_enc: null, two_factor_enabled: 0, totp_last_step: null }).where('id', '=', id).execute();
        await trx.deleteFrom('backup_codes').where('user_id', '=', id).execute();
      }),
    /** Records a TOTP step as used; true only if it is later than every step used before (a compare-and-set:
     *  of two requests with the same code, one wins, on whichever process). */
    claimTotpStep: async (id: number, step: number): Promise<boolean> =>
      changed(await db.updateTable('users').set({ totp_last_step: step })
        .where('id', '=', id).where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
        .executeTakeFirst()),
    /** Marks a backup code used; true only the first time. */
    useBackupCode: async (id: number, codeHash: string): Promise<boolean> =>
      changed(await db.updateTable('backup_codes').set({ used_at: new Date().toISOString() })
        .where('user_id', '=', id).where('code_hash', '=', codeHash).where('pending', '=', 0).where('used_at', 'is', null)
        .executeTakeFirst()),
    /** People only (a workspace's account row is not a user). Memberships are read apart and joined
     *  here, so no list aggregate (group_concat / string_agg) differs between the databases. */
    adminList: async (): Promise<AdminUserRow[]> => {
      const people = await db.selectFrom('users as u').innerJoin('packages as p', 'p.package_id', 'u.package_id')
        .select((eb) => [
          'u.id', 'u.username', 'u.email', 'p.package_name', 'u.two_factor_enabled', 'u.created_at',
          eb.selectFrom('endpoints as e').select((e) => e.fn.countAll<number>().as('n')).whereRef('e.user_id', '=', 'u.id').as('endpoints'),
        ])
        .where('u.kind', '=', 'person').orderBy('u.id').execute();
      const memberships = await db.selectFrom('workspace_members as m').innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select(['m.user_id', 'w.id', 'w.name', 'm.role']).orderBy('m.user_id').orderBy('w.id').execute();
      const of = new Map<number, string[]>();
      for (const m of memberships) of.set(m.user_id, [...(of.get(m.user_id) ?? []), `${m.name} #${m.id} (${m.role})`]);
      return people.map((p) => ({ ...p, endpoints: Number(p.endpoints ?? 0), workspaces: of.get(p.id)?.join(', ') ?? null }));
    },
    /** A new verification link for `email` (the current address or a new one); earlier unused links end. */
    addVerification: (userId: number, tokenHash: string, email: string, expiresAt: number, sessionId: string | null): Promise<void> =>
      inTransaction(db, async (trx) => {
        await trx.deleteFrom('email_verifications').where('user_id', '=', userId).where('used_at', 'is', null).execute();
        await trx.insertInto('email_verifications').values({ token_hash: tokenHash, user_id: userId, email, expires_at: expiresAt, session_id: sessionId }).execute();
      }),
    verification: (tokenHash: string): Promise<VerificationRow | undefined> =>
      db.selectFrom('email_verifications').select(['user_id', 'email', 'expires_at', 'used_at', 'session_id']).where('token_hash', '=', tokenHash).executeTakeFirst(),
    /** Marks a link used; false when it was used already or has expired. */
    useVerification: async (tokenHash: string, at: number): Promise<boolean> =>
      changed(await db.updateTable('email_verifications').set({ used_at: at })
        .where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', at)
        .executeTakeFirst()),
    /** The new address waiting for its link, if any. */
    pendingEmail: async (userId: number, at: number): Promise<string | null> =>
      (await db.selectFrom('email_verifications as v').select('v.email')
        .where('v.user_id', '=', userId).where('v.used_at', 'is', null).where('v.expires_at', '>', at)
        .where((eb) => eb(eb.fn('lower', ['v.email']), '<>', eb.selectFrom('users as u').select((u) => u.fn<string>('lower', ['u.email']).as('e')).where('u.id', '=', userId)))
        .orderBy('v.expires_at', 'desc').limit(1)
        .executeTakeFirst())?.email ?? null,
    setVerifiedEmail: async (userId: number, email: string): Promise<void> => {
      await db.updateTable('users').set({ email, email_verified: 1 }).where('id', '=', userId).execute();
    },
  };
}
export type UsersRepo = ReturnType<typeof createUsersRepo>;
