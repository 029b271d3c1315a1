// Migrations 45 and 46 on a database that has data: SSO joins read back from the audit log (a member
// removed before the upgrade stays removed), custom domains set before become claims with a token
// each, and paid plans gain custom_domains.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations';

describe('migrations 45 (sso_workspace_joins) and 46 (custom_domain_proof)', () => {
  it('keep what the data says', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    for (const m of MIGRATIONS.filter((x) => x.id < 45)) {
      db.exec(m.sql);
      m.run?.(db);
    }
    db.exec(`INSERT INTO packages (package_name, price, max_endpoints, max_regions, check_frequency_seconds, retention_days, ssl_monitoring, advanced_alerts,
      api_access, multi_region, ping_host, cert_expiry, response_code, response_time) VALUES ('Free', 0, 1, 1, 60, 30, 0, 0, 0, 0, 0, 0, 1, 0), ('Pro', 29, 1, 1, 60, 30, 0, 0, 0, 0, 0, 0, 1, 0)`);
    db.exec(`INSERT INTO users (username, email, password_hash, package_id) VALUES ('a', 'a@example.com', '!', 1), ('b', 'b@example.com', '!', 1)`);
    db.exec(`INSERT INTO audit_log (workspace_id, at, member_id, action, target_id, summary) VALUES
      (1, 5, 2, 'member.join', '2', 'via single sign-on, role=editor'), (1, 6, 2, 'member.join', '2', 'via single sign-on, role=editor'),
      (1, 7, 9, 'member.join', '9', 'via single sign-on, role=editor'), (1, 8, 1, 'member.join', '1', 'invitation')`);
    db.exec(`INSERT INTO status_pages (user_id, slug, title, custom_domain) VALUES (1, 'abc', 'T', 'status.x.example'), (1, 'abd', 'T', NULL)`);
    for (const m of MIGRATIONS.filter((x) => x.id >= 45)) {
      db.exec(m.sql);
      m.run?.(db);
    }
    // the SSO join of user 2 (once), not the deleted user 9 nor an invitation
    expect(db.prepare('SELECT * FROM sso_workspace_joins').all()).toEqual([{ workspace_id: 1, user_id: 2, at: 5 }]);
    const pages = db.prepare('SELECT slug, custom_domain, custom_domain_claim, custom_domain_token FROM status_pages ORDER BY slug').all() as Array<Record<string, string | null>>;
    expect(pages[0]).toMatchObject({ custom_domain: null, custom_domain_claim: 'status.x.example' });
    expect(pages[0].custom_domain_token).toMatch(/^[0-9a-f]{32}$/);
    expect(pages[1].custom_domain_token).toMatch(/^[0-9a-f]{32}$/);
    expect(pages[1].custom_domain_token).not.toBe(pages[0].custom_domain_token);
    expect(db.prepare('SELECT package_name, custom_domains FROM packages ORDER BY package_id').all()).toEqual([
      { package_name: 'Free', custom_domains: 0 }, { package_name: 'Pro', custom_domains: 1 },
    ]);
  });
});
