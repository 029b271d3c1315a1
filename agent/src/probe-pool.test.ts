import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { startTargets, type Targets } from '../../tests/helpers/targets';
import { createProbePool } from './probe-pool';

let t: Targets;
beforeAll(async () => { t = await startTargets(); });
afterAll(() => t.close());

const check = (id: string, url: string): Assignment => ({
  check_id: id, endpoint_id: 1, kind: 'CHECK_KIND_HTTP', url, interval_seconds: 60, timeout_ms: 2000,
  region: 'EU-Germany', retention_days: 30,
});

describe('probe pool', () => {
  it('runs checks on worker threads and returns the same results as in-process probes', async () => {
    const pool = createProbePool({ threads: 2, allowPrivateTargets: true });
    try {
      const [ok, refused] = await Promise.all([pool.run(check('a', t.http.ok)), pool.run(check('b', t.refused))]);
      expect(ok).toMatchObject({ check_id: 'a', ok: true, status_code: 200 });
      expect(refused).toMatchObject({ check_id: 'b', ok: false, phase: 'connect', error: 'connection refused' });
    } finally {
      await pool.close();
    }
  });

  it('applies the private-target guard inside the workers too', async () => {
    const pool = createProbePool({ threads: 1, allowPrivateTargets: false });
    try {
      expect(await pool.run(check('a', t.http.ok))).toMatchObject({ ok: false, error: expect.stringMatching(/^target address not allowed: 127\.0\.0\.1 is a private/) });
    } finally {
      await pool.close();
    }
  });

  it('replaces a crashed probe thread and reports its in-flight checks as failed instead of hanging', async () => {
    const crashes: number[] = [];
    const pool = createProbePool({
      threads: 1, allowPrivateTargets: true, workerUrl: new URL('./testing/crashing-probe-worker.mjs', import.meta.url),
      onCrash: (_err, lost) => crashes.push(lost),
    });
    try {
      // a slow check in flight on the same thread dies with it
      const slow = pool.run(check('slow', t.http.slow));
      const crash = pool.run(check('crash', `${t.http.ok.replace(/\/ok$/, '')}/crash-the-thread`));
      const [s, c] = await Promise.all([slow, crash]);
      for (const [r, id] of [[s, 'slow'], [c, 'crash']] as const) {
        expect(r).toMatchObject({ check_id: id, ok: false, phase: 'http', error: 'probe thread crashed during the check: probe thread blew up' });
      }
      expect(crashes).toEqual([2]);
      expect(pool.replaced()).toBe(1);
      // the replacement thread runs checks
      expect(await pool.run(check('after', t.http.ok))).toMatchObject({ check_id: 'after', ok: true, status_code: 200 });
    } finally {
      await pool.close();
    }
  });
});
