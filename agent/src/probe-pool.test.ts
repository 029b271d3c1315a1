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
});
