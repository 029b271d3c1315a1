// The server's one door from untrusted input to typed values: a zod schema from @upfleet/proto/schemas,
// whose first failure becomes the AppError the client sees (the schema carries the SPEC's message).
import { IdParam, check, type Checked } from '@upfleet/proto/schemas';
import { badRequest, notFound } from '../errors';

type Schema<T> = Parameters<typeof check>[0] & { _zod: { output: T } };

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Parses a request body or query with `schema`. A body that is not a JSON object counts as `{}` (so a
 * missing body says which field is required); the first failure becomes a 400 with its message.
 */
export function parseInput<T>(schema: Schema<T>, raw: unknown): T {
  const r: Checked<T> = check(schema, isPlainObject(raw) ? raw : {});
  if (!r.ok) throw badRequest(r.error);
  return r.data;
}

/** A numeric id from a path or query; anything else is a 404 for `what`. */
export function parseId(raw: unknown, what = 'Not found'): number {
  const r = check(IdParam, String(raw));
  if (!r.ok) throw notFound(what);
  return r.data;
}
