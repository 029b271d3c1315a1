// 7-day uptime moves slowly; a short cache keeps a busy dashboard from asking ClickHouse every time.
// Concurrent misses for the same endpoint set share one query. `version` (optional) changes when
// what the values depend on besides results does (maintenance windows): the cache is then dropped.
import type { UptimeSource } from './endpoints';

export function cachedUptime(source: UptimeSource, ttlMs = 10_000, now: () => number = Date.now, version?: () => number): UptimeSource {
  const cache = new Map<number, { value: number | null; at: number }>();
  const inflight = new Map<string, Promise<Map<number, number | null>>>();
  let seen = version?.();
  return {
    async uptime(ids) {
      const t = now();
      const v = version?.();
      if (v !== seen) {
        cache.clear();
        seen = v;
      }
      const missing = ids.filter((id) => {
        const c = cache.get(id);
        return !c || t - c.at > ttlMs;
      });
      if (missing.length > 0) {
        const key = missing.join(',');
        let p = inflight.get(key);
        if (!p) {
          p = source.uptime(missing).finally(() => inflight.delete(key));
          inflight.set(key, p);
        }
        const fresh = await p;
        for (const id of missing) cache.set(id, { value: fresh.get(id) ?? null, at: t });
        if (cache.size > 200_000) cache.clear();
      }
      return new Map(ids.map((id) => [id, cache.get(id)?.value ?? null]));
    },
  };
}
