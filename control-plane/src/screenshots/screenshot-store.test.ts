// The screenshot store on both databases: kept once across a re-sent batch, only real PNG/WebP
// bytes, within the size cap (oldest first), for the plan's retention, and gone with the endpoint.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql as raw } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResult, Screenshot } from '@upfleet/proto';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import type { Sql } from '../store/sql/open';
import { createFileBlobs } from './blob-store';
import { createScreenshotsRepo } from './screenshots-repo';
import { createScreenshotStore } from './screenshot-store';
import { screenshotId } from './screenshot-id';

const DAY = 86_400_000;
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const png = (size: number, fill = 1) => Buffer.concat([Buffer.from(PNG_MAGIC), Buffer.alloc(Math.max(0, size - 8), fill)]);
const webp = (size: number) => Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), Buffer.alloc(Math.max(0, size - 12), 7)]);
const shot = (name: string, data: Buffer, mime = 'image/png', step = 2): Screenshot => ({ name, mime, data, step });

function result(endpointId: number, resultId: string, tsMs: number, screenshots: Screenshot[], retentionDays = 30): CheckResult {
  return {
    check_id: `${endpointId}:browser:EU-Germany`, endpoint_id: endpointId, kind: 'CHECK_KIND_BROWSER', region: 'EU-Germany', ts_ms: tsMs, ok: false,
    phase: 'step', error: 'step 2 (click #go): timeout', status_code: 0, dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 10, total_ms: 900,
    cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: retentionDays,
    result_id: resultId, screenshots,
  };
}

async function insertEndpoint(s: Sql, userId: number): Promise<number> {
  const row = await raw<{ url_id: number }>`INSERT INTO endpoints (guid, user_id, name, url) VALUES (${`g-${Math.random()}`}, ${userId}, 'Shop', 'https://example.com/') RETURNING url_id`.execute(s.db);
  return Number(row.rows[0].url_id);
}

describe.each(SQL_DIALECTS)('screenshot store on $title', (d) => {
  const sql = freshSql(d);
  let dir: string;
  let clock: number;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-shots-'));
    clock = Date.UTC(2026, 10, 27, 12);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function setup(opts: { maxTotalBytes?: number } = {}) {
    const ws = await insertTestUser(sql());
    const other = await insertTestUser(sql());
    const ep = await insertEndpoint(sql(), ws);
    const otherEp = await insertEndpoint(sql(), other);
    const owners = new Map([[ep, ws], [otherEp, other]]);
    const store = createScreenshotStore({
      repo: createScreenshotsRepo(sql().db), blobs: createFileBlobs(dir), workspaceOf: (id) => owners.get(id) ?? null,
      maxTotalBytes: opts.maxTotalBytes ?? 10_000_000, logger: pino({ level: 'silent' }), now: () => clock,
    });
    return { store, ws, other, ep, otherEp, owners };
  }
  const files = () => readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.(png|webp)$/.test(f)).sort();

  it('stores a batch\'s screenshots once, however often the batch is sent, and leaves the rows only their ids', async () => {
    const { store, ws, ep } = await setup();
    const send = () => [result(ep, 'r1', clock - 1000, [shot('failure', png(500)), shot('cart', webp(300), 'image/webp', 1)])];
    const first = send();
    await store.keep(first);
    expect(first[0].screenshots!.map((s) => [s.name, s.data.length])).toEqual([['failure', 0], ['cart', 0]]);
    await store.keep(send());
    const listed = await store.list(ws, ep);
    expect(listed.map((s) => [s.id, s.name, s.mime, s.bytes, s.step])).toEqual([
      [screenshotId('r1', 'cart'), 'cart', 'image/webp', 300, 1],
      [screenshotId('r1', 'failure'), 'failure', 'image/png', 500, 2],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    expect(files()).toEqual([`${ws}/${ep}/${screenshotId('r1', 'cart')}.webp`, `${ws}/${ep}/${screenshotId('r1', 'failure')}.png`].sort());
    const read = await store.read(ws, ep, screenshotId('r1', 'failure'));
    expect(read?.mime).toBe('image/png');
    expect(read?.data.equals(png(500))).toBe(true);
  });

  it('lists newest first and never another workspace\'s screenshots', async () => {
    const { store, ws, other, ep, otherEp } = await setup();
    await store.keep([result(ep, 'old', clock - 5000, [shot('failure', png(100))]), result(ep, 'new', clock - 1000, [shot('failure', png(100))])]);
    await store.keep([result(otherEp, 'theirs', clock - 500, [shot('failure', png(100))])]);
    expect((await store.list(ws, ep)).map((s) => s.result_id)).toEqual(['new', 'old']);
    expect(await store.list(other, ep)).toEqual([]);
    expect(await store.read(other, ep, screenshotId('new', 'failure'))).toBeNull();
    expect(await store.read(ws, otherEp, screenshotId('theirs', 'failure'))).toBeNull();
  });

  it('stores only PNG or WebP bytes within 300 kB, whatever the agent declared', async () => {
    const { store, ws, ep } = await setup();
    const rows = [result(ep, 'r1', clock, [
      shot('html', Buffer.from('<svg onload=alert(1)>'), 'image/png'),
      shot('liar', png(100), 'image/webp'),
      shot('huge', png(300 * 1024 + 1)),
      shot('fine', png(300 * 1024)),
    ])];
    await store.keep(rows);
    expect(rows[0].screenshots!.map((s) => s.name)).toEqual(['fine']);
    expect((await store.list(ws, ep)).map((s) => s.name)).toEqual(['fine']);
    expect(files()).toHaveLength(1);
  });

  it('deletes the oldest screenshots when the store is over its size cap', async () => {
    const { store, ws, ep } = await setup({ maxTotalBytes: 2500 });
    for (let i = 1; i <= 4; i++) await store.keep([result(ep, `r${i}`, clock - (10 - i) * 1000, [shot('failure', png(1000, i))])]);
    expect((await store.list(ws, ep)).map((s) => s.result_id)).toEqual(['r4', 'r3']);
    expect(files()).toHaveLength(2);
    expect(await store.read(ws, ep, screenshotId('r1', 'failure'))).toBeNull();
  });

  it('keeps a screenshot for its plan\'s retention; the sweep deletes it after', async () => {
    const { store, ws, ep } = await setup();
    await store.keep([result(ep, 'short', clock, [shot('failure', png(100))], 1), result(ep, 'long', clock, [shot('failure', png(100))], 30)]);
    clock += DAY + 1;
    expect(await store.read(ws, ep, screenshotId('short', 'failure'))).toBeNull();
    expect(await store.sweep()).toEqual({ expired: 1, orphaned: 0, evicted: 0 });
    expect((await store.list(ws, ep)).map((s) => s.result_id)).toEqual(['long']);
    expect(files()).toHaveLength(1);
  });

  it('deletes an endpoint\'s screenshots with it, and the sweep those of endpoints deleted with their workspace', async () => {
    const { store, ws, other, ep, otherEp, owners } = await setup();
    await store.keep([result(ep, 'a', clock, [shot('failure', png(100))]), result(otherEp, 'b', clock, [shot('failure', png(100))])]);
    expect(await store.deleteForEndpoint(ep)).toBe(1);
    expect(await store.list(ws, ep)).toEqual([]);
    expect(files()).toEqual([`${other}/${otherEp}/${screenshotId('b', 'failure')}.png`]);
    // the row goes (as when its account is deleted); the sweep finds its screenshots
    await raw`DELETE FROM endpoints WHERE url_id = ${otherEp}`.execute(sql().db);
    owners.delete(otherEp);
    expect(await store.sweep()).toEqual({ expired: 0, orphaned: 1, evicted: 0 });
    expect(files()).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});
