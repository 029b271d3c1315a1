// The embedded agent (EMBEDDED_AGENT=1) gets its bootstrap token through the environment, never
// on its command line, where any local user could read it (ps, /proc/<pid>/cmdline).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessWithResults, type Harness } from './testing/harness';

/** Command lines of this process's children (and theirs). */
function descendantsCmdlines(): string[] {
  const parentOf = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parentOf.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const out: string[] = [];
  for (const [pid] of parentOf) {
    let p: number | undefined = pid;
    while (p && p !== process.pid && p > 1) p = parentOf.get(p);
    if (p === process.pid && pid !== process.pid) {
      try {
        out.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
      } catch {
        // gone
      }
    }
  }
  return out;
}

describe('embedded agent', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarnessWithResults({ EMBEDDED_AGENT: '1' });
  }, 120_000);
  afterAll(() => h?.close());

  it('registers with a token it got from the environment; no command line carries the token', async () => {
    const agents = async () => ((await fetch(`${h.cp.url}/api/admin/agents`, { headers: { authorization: `Bearer ${h.cp.adminToken}` } }).then((r) => r.json())) as { data: Array<{ status: string }> }).data;
    const start = Date.now();
    while (!(await agents()).some((a) => a.status === 'live')) {
      if (Date.now() - start > 60_000) throw new Error('the embedded agent did not register');
      await new Promise((r) => setTimeout(r, 200));
    }
    const lines = descendantsCmdlines();
    expect(lines.some((l) => l.includes('agent/src/main.ts'))).toBe(true);
    for (const l of lines) {
      expect(l).not.toMatch(/upf_/);
      expect(l).not.toContain('--token');
    }
  });
});
