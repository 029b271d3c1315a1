// API keys for the public API: made and revoked by their owner (plans with api_access), used as
// `Authorization: Bearer upk_…` on the data routes, each key with its own per-minute allowance.
import { planViolations } from '@upfleet/proto/plan';
import { LIMITS, MESSAGES, type ApiKey, type CreatedApiKey, type Package } from '@upfleet/proto/rest';
import type { ApiKeyCreateBody } from '@upfleet/proto/schemas';
import { AppError, badRequest, notFound, planRefused, unauthorized } from '../errors';
import { randomToken, sha256 } from '../lib/crypto';
import type { ApiKeysRepo } from '../store/api-keys-repo';

export const API_KEY_PREFIX = 'upk_';
/** Characters of a key kept in clear to tell keys apart in lists: `upk_` and 8 of the random part. */
const SHOWN_CHARS = 12;

/** What the rate-limit headers say about the key's current minute. */
export interface KeyAllowance { limit: number; remaining: number; resetSeconds: number }

export interface KeyUse {
  /** The key's workspace. */
  userId: number;
  /** The member who made it (it acts with their role in the workspace). */
  createdBy: number | null;
  keyId: number;
  allowance: KeyAllowance;
  /** Set when the request may not proceed (429 or 403): the caller still sends the allowance headers. */
  refusal: AppError | null;
}

export const isApiKey = (token: string): boolean => token.startsWith(API_KEY_PREFIX);

export function createApiKeyService(deps: {
  keys: ApiKeysRepo;
  planOf: (userId: number) => Promise<Package>;
  perMinute: number;
  now?: () => number;
  /** A key was revoked: what it holds open (live-event streams) ends now, not at its next request. */
  onRevoked?: (keyId: number) => void;
}) {
  const now = deps.now ?? Date.now;
  // Fixed one-minute windows per key, in memory: a restart gives every key a fresh minute.
  const windows = new Map<number, { start: number; count: number }>();

  async function requireApiAccess(userId: number): Promise<void> {
    const refused = planViolations(await deps.planOf(userId), { apiAccess: true })[0];
    if (refused) throw planRefused(refused);
  }

  function spend(keyId: number): { allowance: KeyAllowance; allowed: boolean } {
    const t = now();
    const start = t - (t % 60_000);
    let w = windows.get(keyId);
    if (!w || w.start !== start) {
      if (windows.size > 100_000) windows.clear();
      w = { start, count: 0 };
      windows.set(keyId, w);
    }
    const allowed = w.count < deps.perMinute;
    if (allowed) w.count++;
    const resetSeconds = Math.max(1, Math.ceil((start + 60_000 - t) / 1000));
    return { allowance: { limit: deps.perMinute, remaining: deps.perMinute - w.count, resetSeconds }, allowed };
  }

  return {
    /** Requests a key may make a minute. */
    perMinute: deps.perMinute,

    /** A key for workspace `userId`, made by member `createdBy` (the personal workspace's person by default). */
    async create(userId: number, body: ApiKeyCreateBody, createdBy: number = userId): Promise<CreatedApiKey> {
      await requireApiAccess(userId);
      if (await deps.keys.count(userId) >= LIMITS.maxApiKeys) throw badRequest(MESSAGES.tooManyApiKeys);
      const key = `${API_KEY_PREFIX}${randomToken(24)}`;
      const prefix = key.slice(0, SHOWN_CHARS);
      const id = await deps.keys.insert(userId, body.name, prefix, sha256(key), createdBy);
      const row = (await deps.keys.get(userId, id))!;
      return { id, name: row.name, key, prefix, created_at: row.created_at };
    },

    list: (userId: number): Promise<ApiKey[]> => deps.keys.list(userId),

    async revoke(userId: number, id: number): Promise<{ id: number }> {
      if (!(await deps.keys.delete(userId, id))) throw notFound('API key not found');
      deps.onRevoked?.(id);
      return { id };
    },

    /** Resolves a presented key to its owner, counting the request against the key's minute. */
    async use(key: string): Promise<KeyUse> {
      const row = await deps.keys.byHash(sha256(key));
      if (!row) throw unauthorized('Invalid API key');
      const { allowance, allowed } = spend(row.id);
      let refusal: AppError | null = null;
      if (!allowed) {
        refusal = new AppError('rate_limited', `Rate limit of ${deps.perMinute} requests a minute reached for this API key`, { retryAfter: allowance.resetSeconds });
      } else {
        try {
          await requireApiAccess(row.user_id); // a downgrade stops keys at once; an upgrade brings them back
          await deps.keys.touch(row.id, new Date(now()).toISOString());
        } catch (e) {
          refusal = e as AppError;
        }
      }
      return { userId: row.user_id, createdBy: row.created_by, keyId: row.id, allowance, refusal };
    },
  };
}
export type ApiKeyService = ReturnType<typeof createApiKeyService>;
