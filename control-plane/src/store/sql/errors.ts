// What the two databases say differently about the same failure, in one place.

/** A UNIQUE or PRIMARY KEY conflict: better-sqlite3's SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY, Postgres's 23505. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
