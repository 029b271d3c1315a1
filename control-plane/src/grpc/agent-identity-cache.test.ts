// The agent credential cache over the real agents table: a revocation on this process is seen at
// once (forget), one made elsewhere once the entry's TTL has passed.
import { describe, expect, it } from 'vitest';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { createAgentsRepo } from '../store/agents-repo';
import { createAgentIdentityCache } from './agent-identity-cache';

describe('agent identity cache', () => {
  const sql = freshSql(SQL_DIALECTS[0]);

  async function setup() {
    const repo = createAgentsRepo(sql().db);
    await repo.insertToken('t1', 'th', 'EU-Germany', 0, null, null);
    await repo.registerAgent({ agentId: 'a1', secretHash: 'sh', region: 'EU-Germany', hostname: 'h', version: '1', tokenId: 't1' }, 100);
    let reads = 0;
    const counted = { agent: (id: string) => { reads++; return repo.agent(id); } };
    let t = 1000;
    const cache = createAgentIdentityCache({ agents: counted, ttlMs: 5000, now: () => t });
    return { repo, cache, reads: () => reads, advance: (ms: number) => { t += ms; } };
  }

  it('reads an agent once per TTL, and again after it', async () => {
    const s = await setup();
    expect(await s.cache.get('a1')).toEqual({ agent_id: 'a1', secret_hash: 'sh', region: 'EU-Germany', created_at: 100, revoked_at: null });
    await s.cache.get('a1');
    s.advance(4999);
    await s.cache.get('a1');
    expect(s.reads()).toBe(1);
    s.advance(1);
    await s.cache.get('a1');
    expect(s.reads()).toBe(2);
  });

  it('does not remember an unknown agent: one registered meanwhile is known at its next call', async () => {
    const s = await setup();
    expect(await s.cache.get('a2')).toBeUndefined();
    await s.repo.registerAgent({ agentId: 'a2', secretHash: 'sh2', region: 'EU-Germany', hostname: 'h', version: '1', tokenId: 't1' }, 200);
    expect((await s.cache.get('a2'))?.secret_hash).toBe('sh2');
  });

  it('sees a revocation made here at once, and one made by another process after the TTL', async () => {
    const s = await setup();
    await s.cache.get('a1');
    await s.repo.revokeToken('t1', 2000);
    // Another process revoked it: the cached answer stands until the entry expires.
    expect((await s.cache.get('a1'))?.revoked_at).toBeNull();
    expect(s.cache.allowedNow('a1')).toBe(true);
    s.advance(5000);
    // The per-batch check answers from memory and refreshes behind it; the next batch is refused.
    expect(s.cache.allowedNow('a1')).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.cache.allowedNow('a1')).toBe(false);
    expect((await s.cache.get('a1'))?.revoked_at).toBe(2000);
  });

  it('forgets a revoked agent so the next call reads the revocation', async () => {
    const s = await setup();
    await s.cache.get('a1');
    await s.repo.revokeToken('t1', 2000);
    s.cache.forget(['a1']);
    expect((await s.cache.get('a1'))?.revoked_at).toBe(2000);
  });
});
