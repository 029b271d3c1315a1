import type { Db } from './db';

// First-start data: the Free plan exactly as SPEC section 9, three paid plans (stripe_price_id
// empty until billing is configured), the primary region EU - Germany and two more, monitor types.
const PACKAGES = [
  { name: 'Free', price: 0, description: 'For personal projects: the essentials to know when your site is down.', max_endpoints: 10, max_regions: 1, max_members: 1, freq: 300, retention: 30, ssl: 0, adv: 0, api: 0, multi: 0, ping: 0, cert: 0, code: 1, time: 0, pages: 1 },
  { name: 'Starter', price: 9, description: 'For small sites: faster checks, response times and SSL certificate monitoring.', max_endpoints: 50, max_regions: 2, max_members: 3, freq: 60, retention: 90, ssl: 1, adv: 0, api: 0, multi: 1, ping: 1, cert: 1, code: 1, time: 1, pages: 3 },
  { name: 'Pro', price: 29, description: 'For teams: 30-second checks from every region with advanced alerts.', max_endpoints: 200, max_regions: 3, max_members: 10, freq: 30, retention: 180, ssl: 1, adv: 1, api: 1, multi: 1, ping: 1, cert: 1, code: 1, time: 1, pages: 10 },
  { name: 'Business', price: 99, description: 'For businesses: 10-second checks, a year of history and API access.', max_endpoints: 1000, max_regions: 10, max_members: 50, freq: 10, retention: 365, ssl: 1, adv: 1, api: 1, multi: 1, ping: 1, cert: 1, code: 1, time: 1, pages: 50 },
];

const REGIONS = [
  { region: 'EU', city: 'Germany', primary: 1 },
  { region: 'US', city: 'Virginia', primary: 0 },
  { region: 'AP', city: 'Singapore', primary: 0 },
];

const MONITOR_TYPES = [
  { code: 'ping_host', name: 'Ping Host', primary: 0 },
  { code: 'cert_expiry', name: 'Certificate Expiry', primary: 1 },
  { code: 'response_code', name: 'Response Code', primary: 1 },
  { code: 'response_time', name: 'Response Time', primary: 0 },
];

export function seedDatabase(db: Db): void {
  db.transaction(() => {
    if ((db.prepare('SELECT COUNT(*) FROM packages').pluck().get() as number) === 0) {
      const ins = db.prepare(`INSERT INTO packages (package_name, price, currency, description, max_endpoints, max_regions, max_members,
        check_frequency_seconds, retention_days, ssl_monitoring, advanced_alerts, api_access, multi_region, ping_host,
        cert_expiry, response_code, response_time, stripe_price_id, sort_order, max_status_pages)
        VALUES (?, ?, 'EUR', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?)`);
      PACKAGES.forEach((p, i) =>
        ins.run(p.name, p.price, p.description, p.max_endpoints, p.max_regions, p.max_members, p.freq, p.retention, p.ssl, p.adv, p.api, p.multi, p.ping, p.cert, p.code, p.time, i, p.pages),
      );
      // Free checks http and heartbeat endpoints; the others every kind (NULL).
      db.prepare(`UPDATE packages SET monitor_kinds = '["http","heartbeat"]' WHERE package_name = 'Free'`).run();
      db.prepare('UPDATE packages SET custom_domains = 1 WHERE price > 0').run();
      db.prepare(`UPDATE packages SET browser_checks = CASE package_name WHEN 'Starter' THEN 2 WHEN 'Pro' THEN 10 WHEN 'Business' THEN 50 ELSE 0 END`).run();
    }
    if ((db.prepare('SELECT COUNT(*) FROM regions').pluck().get() as number) === 0) {
      const ins = db.prepare('INSERT INTO regions (region, city, primary_region) VALUES (?, ?, ?)');
      for (const r of REGIONS) ins.run(r.region, r.city, r.primary);
    }
    const insType = db.prepare('INSERT OR IGNORE INTO monitor_types (type_code, display_name, requires_primary_region) VALUES (?, ?, ?)');
    for (const t of MONITOR_TYPES) insType.run(t.code, t.name, t.primary);
  })();
}
