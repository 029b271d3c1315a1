// The live-agents snapshot the assignment engine reads: reloaded from the agents table, extended
// at once by this process's heartbeats, and never resurrecting an agent revoked here.
import { describe, expect, it } from 'vitest';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { createAgentsRepo } from '../store/agents-repo';
import { createLiveAgents } from './live-agents';

describe('live agents snapshot', () => {
  const sql = freshSql(SQL_DIALECTS[0]);
  const t = 10_000;

  async function setup() {
    const repo = createAgentsRepo(sql().db);
    await repo.insertToken('t1', 'th', 'EU-Germany', 0, null, null);
    await repo.insertToken('t2', 'th2', 'US-Virginia', 0, null, null);
    for (const [id, token, region] of [['a1', 't1', 'EU-Germany'], ['a2', 't1', 'EU-Germany'], ['b1', 't2', 'US-Virginia']]) {
      await repo.registerAgent({ agentId: id, secretHash: 'x', region, hostname: 'h', version: '1', tokenId: token }, 0);
    }
    return repo;
  }

  it('shows, by region, the agents whose lease in the database is live after a reload', async () => {
    const repo = await setup();
    await repo.touch('a1', t, t + 30_000);
    await repo.touch('b1', t, t + 30_000);
    await repo.touch('a2', t, t - 1);
    let now = t;
    const live = createLiveAgents({ agents: repo, now: () => now });
    expect(live.byRegion()).toEqual(new Map());
    await live.reload();
    expect(live.byRegion()).toEqual(new Map([['EU-Germany', new Set(['a1'])], ['US-Virginia', new Set(['b1'])]]));
    // A lease that runs out leaves the snapshot without a reload.
    now = t + 30_000;
    expect(live.byRegion()).toEqual(new Map());
  });

  it('adds a lease this process extended at once, and keeps it when a reload that began before it ends', async () => {
    const repo = await setup();
    const live = createLiveAgents({ agents: repo, now: () => t });
    const reload = live.reload();
    live.noteLease('a2', 'EU-Germany', t + 30_000);
    await reload;
    expect(live.byRegion()).toEqual(new Map([['EU-Germany', new Set(['a2'])]]));
  });

  it('drops an agent revoked here at once, also from a reload that read it before the revocation', async () => {
    const repo = await setup();
    await repo.touch('a1', t, t + 30_000);
    const live = createLiveAgents({ agents: repo, now: () => t });
    await live.reload();
    const reload = live.reload();
    live.forget(['a1']);
    await reload;
    expect(live.byRegion()).toEqual(new Map());
    await repo.revokeToken('t1', t);
    await live.reload();
    expect(live.byRegion()).toEqual(new Map());
  });
});
