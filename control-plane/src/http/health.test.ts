// Load-balancer probes: /healthz answers while the process runs; /readyz says which part (database,
// ClickHouse, migrations) keeps this process from taking traffic, without sign-in and never cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createResultStore } from '../results/clickhouse-store';
import { startHarness, startHarnessWithResults, type Harness } from '../testing/harness';

describe('with ClickHouse (embedded chDB)', () => {
  let h: Awaited<ReturnType<typeof startHarnessWithResults>>;
  beforeAll(async () => {
    h = await startHarnessWithResults();
  });
  afterAll(async () => {
    await h.close();
  });

  it('GET /healthz answers 200 { status: "ok" } without sign-in, not cached', async () => {
    const res = await fetch(`${h.cp.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database, its migrations and ClickHouse are all ready', async () => {
    const res = await fetch(`${h.cp.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'ok', clickhouse: 'ok' } });
  });

  it('GET /readyz answers 503 naming the database when a migration of this code is not applied', async () => {
    const last = h.cp.db.prepare('SELECT id, name, applied_at FROM schema_migrations ORDER BY id DESC LIMIT 1').get() as { id: number; name: string; applied_at: string };
    h.cp.db.prepare('DELETE FROM schema_migrations WHERE id = ?').run(last.id);
    try {
      const res = await fetch(`${h.cp.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'not ready', checks: { database: 'behind', clickhouse: 'ok' }, failed: ['database'] });
    } finally {
      h.cp.db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(last.id, last.name, last.applied_at);
    }
    expect((await fetch(`${h.cp.url}/readyz`)).status).toBe(200);
  });

  it('GET /readyz answers 503 naming ClickHouse once the results engine is gone, while /healthz still answers 200', async () => {
    await h.store.close();
    const res = await fetch(`${h.cp.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'not ready', checks: { database: 'ok', clickhouse: 'unreachable' }, failed: ['clickhouse'] });
    expect(text).not.toContain(h.dataDir);
    expect((await fetch(`${h.cp.url}/healthz`)).status).toBe(200);
  });
});

describe('with a ClickHouse server that does not answer', () => {
  let h: Harness;
  const url = 'http://upfleet:s3cret-pass@127.0.0.1:9/';
  beforeAll(async () => {
    // Port 9 (discard) has no listener on loopback: every request is refused.
    const store = createResultStore({ clickhouseUrl: url, dataDir: '/nonexistent', logger: createLogger('silent') });
    // The schema step fails (nothing answers), but the HTTP client is made: /readyz really asks the address.
    await expect(store.init()).rejects.toThrow();
    h = await startHarness({}, { results: store });
  });
  afterAll(async () => {
    await h.close();
  });

  it('GET /readyz answers 503 with clickhouse unreachable and no URL or password in the answer', async () => {
    const res = await fetch(`${h.cp.url}/readyz`);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 'not ready', checks: { clickhouse: 'unreachable' }, failed: ['clickhouse'] });
    expect(text).not.toMatch(/s3cret|127\.0\.0\.1:9/);
  });
});
