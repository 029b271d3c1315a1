import type { Kysely } from 'kysely';
import type { Schema } from './schema';

/** Runs `fn` in one transaction; when `db` is a transaction already, joins it (Kysely has no nested
 *  transactions). Inside, every query must go through the `trx` given: on SQLite the outer instance
 *  waits for the connection the transaction holds. */
export function inTransaction<T>(db: Kysely<Schema>, fn: (trx: Kysely<Schema>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
