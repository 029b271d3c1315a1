// The agents repo on both databases (SQLite and Postgres).
import { describe, expect, it } from 'vitest';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { createAgentsRepo } from './agents-repo';

describe.each(SQL_DIALECTS)('agents repo on $title', (d) => {
  const sql = freshSql(d);
  const agent = (agentId: string, tokenId = 't1') => ({ agentId, secretHash: `hash-${agentId}`, region: 'EU-Germany', hostname: 'h1', version: '0.3.0', tokenId });

  it('stores a bootstrap token and finds it by hash and by id; a second token with the same hash is refused', async () => {
    const repo = createAgentsRepo(sql().db);
    await repo.insertToken('t1', 'th-1', 'EU-Germany', 1000, 5000, 1);
    const expected = { token_id: 't1', token_hash: 'th-1', region: 'EU-Germany', created_at: 1000, expires_at: 5000, revoked_at: null, used_count: 0, max_uses: 1 };
    expect(await repo.tokenByHash('th-1')).toEqual(expected);
    expect(await repo.tokenById('t1')).toEqual(expected);
    expect(await repo.tokenByHash('nope')).toBeUndefined();
    await expect(repo.insertToken('t2', 'th-1', 'EU-Germany', 2000, null, null)).rejects.toThrow();
    await repo.insertToken('t3', 'th-3', 'US-Virginia', 3000, null, null);
    expect((await repo.listTokens()).map((t) => [t.token_id, t.max_uses])).toEqual([['t1', 1], ['t3', null]]);
  });

  it('registers as many agents as the token allows, also when the registrations race, and writes nothing for a refused one', async () => {
    const repo = createAgentsRepo(sql().db);
    await repo.insertToken('t1', 'th-1', 'EU-Germany', 1000, null, 2);
    const results = await Promise.all(['a1', 'a2', 'a3', 'a4'].map((id) => repo.registerAgent(agent(id), 2000)));
    expect(results.filter(Boolean)).toHaveLength(2);
    expect((await repo.tokenById('t1'))?.used_count).toBe(2);
    expect(await repo.listAgents()).toHaveLength(2);
    const refused = ['a1', 'a2', 'a3', 'a4'].filter((_, i) => !results[i]);
    for (const id of refused) expect(await repo.agent(id)).toBeUndefined();
    // Without a limit any number register.
    await repo.insertToken('t2', 'th-2', 'EU-Germany', 1000, null, null);
    for (const id of ['b1', 'b2', 'b3']) expect(await repo.registerAgent(agent(id, 't2'), 3000)).toBe(true);
    expect((await repo.tokenById('t2'))?.used_count).toBe(3);
  });

  it('records heartbeats and versions, and lists the agents whose lease is live and not revoked', async () => {
    const repo = createAgentsRepo(sql().db);
    await repo.insertToken('t1', 'th-1', 'EU-Germany', 1000, null, null);
    for (const id of ['a1', 'a2', 'a3']) await repo.registerAgent(agent(id), 1000);
    expect(await repo.agent('a1')).toEqual({
      agent_id: 'a1', secret_hash: 'hash-a1', region: 'EU-Germany', hostname: 'h1', version: '0.3.0', token_id: 't1', created_at: 1000,
      last_heartbeat_at: null, lease_expires_at: null, checks_owned: 0, checks_per_minute: 0, outbox_depth: 0, scheduling_lag_ms_p99: 0,
      revoked_at: null, browser_checks: 0, browser_unavailable: '',
    });
    await repo.heartbeat('a1', 5000, 35_000, { checks_owned: 7, checks_per_minute: 12.5, outbox_depth: 3, lag: 4.25, browser_checks: true });
    await repo.heartbeat('a2', 5000, 6000, { checks_owned: 1, checks_per_minute: 1, outbox_depth: 0, lag: 0, browser_unavailable: 'no chromium' });
    await repo.touch('a3', 5000, 35_000);
    await repo.setVersion('a3', '0.4.0');
    expect(await repo.agent('a1')).toMatchObject({
      last_heartbeat_at: 5000, lease_expires_at: 35_000, checks_owned: 7, checks_per_minute: 12.5, outbox_depth: 3, scheduling_lag_ms_p99: 4.25,
      browser_checks: 1, browser_unavailable: '',
    });
    expect(await repo.agent('a2')).toMatchObject({ browser_checks: 0, browser_unavailable: 'no chromium' });
    expect(await repo.agent('a3')).toMatchObject({ version: '0.4.0', last_heartbeat_at: 5000, lease_expires_at: 35_000 });
    // a2's lease ran out at 6000.
    expect(await repo.live(10_000)).toEqual([
      { agent_id: 'a1', region: 'EU-Germany', lease_expires_at: 35_000 },
      { agent_id: 'a3', region: 'EU-Germany', lease_expires_at: 35_000 },
    ]);
  });

  it('revokes a token and the agents registered with it once; a second revocation changes nothing', async () => {
    const repo = createAgentsRepo(sql().db);
    await repo.insertToken('t1', 'th-1', 'EU-Germany', 1000, null, null);
    await repo.insertToken('t2', 'th-2', 'EU-Germany', 1000, null, null);
    for (const id of ['a1', 'a2']) await repo.registerAgent(agent(id, 't1'), 1000);
    await repo.registerAgent(agent('b1', 't2'), 1000);
    for (const id of ['a1', 'a2', 'b1']) await repo.touch(id, 2000, 60_000);
    const both = await Promise.all([repo.revokeToken('t1', 3000), repo.revokeToken('t1', 3000)]);
    expect(both.map((ids) => ids.length).sort()).toEqual([0, 2]);
    expect(both.flat().sort()).toEqual(['a1', 'a2']);
    expect((await repo.tokenById('t1'))?.revoked_at).toBe(3000);
    expect(await repo.revokeToken('t1', 4000)).toEqual([]);
    expect((await repo.tokenById('t1'))?.revoked_at).toBe(3000);
    expect((await repo.agent('a1'))?.revoked_at).toBe(3000);
    expect((await repo.agent('b1'))?.revoked_at).toBeNull();
    expect((await repo.live(5000)).map((a) => a.agent_id)).toEqual(['b1']);
  });
});
