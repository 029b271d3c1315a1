import { describe, expect, it } from 'vitest';
import { configWarnings, loadConfig, redactConfig, redactSecretsIn, redactUrl } from './config';

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({}, '/srv/upfleet');
    expect(c).toMatchObject({ port: 8080, grpcPort: 50051, dataDir: '/srv/upfleet/data', clickhouseUrl: null, embeddedAgent: true });
  });

  it('lists every bad variable by name in one message', () => {
    expect(() => loadConfig({ PORT: 'eighty', GRPC_PORT: '70000', EMBEDDED_AGENT: 'maybe' })).toThrow(
      "Invalid configuration: PORT must be a whole number from 0 to 65535 (got 'eighty'); GRPC_PORT must be a whole number from 0 to 65535 (got '70000'); EMBEDDED_AGENT must be 0 or 1 (got 'maybe')",
    );
  });

  it('turns the embedded agent off with EMBEDDED_AGENT=0 and redacts secrets for logging', () => {
    const c = loadConfig({ EMBEDDED_AGENT: '0', SECRET_KEY: Buffer.alloc(32, 7).toString('base64'), STRIPE_SECRET_KEY: 'sk_test_x' });
    expect(c.embeddedAgent).toBe(false);
    const shown = JSON.stringify(redactConfig(c));
    expect(shown).not.toContain('sk_test_x');
    expect(shown).not.toContain(Buffer.alloc(32, 7).toString('base64'));
  });
});

describe('TRUST_PROXY', () => {
  it('is off by default and takes a hop count or an address list', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
  });
});

describe('TRUST_PROXY warning at start', () => {
  it('warns when a hop count is trusted on a port reachable directly (HOST=0.0.0.0 or ::), not for addresses or a loopback HOST', () => {
    const warn = (env: Record<string, string>) => configWarnings(loadConfig(env, '/srv'));
    expect(warn({ TRUST_PROXY: '1' })).toEqual([expect.stringMatching(/^TRUST_PROXY=1 \(a hop count\) with HOST=0\.0\.0\.0: .*X-Forwarded-For.*loopback/)]);
    expect(warn({ TRUST_PROXY: 'true', HOST: '::' })).toHaveLength(1);
    expect(warn({ TRUST_PROXY: '1', HOST: '127.0.0.1' })).toEqual([]);
    expect(warn({ TRUST_PROXY: 'loopback' })).toEqual([]);
    expect(warn({ TRUST_PROXY: '10.0.0.5' })).toEqual([]);
    expect(warn({})).toEqual([]);
  });
});

describe('DNS_RESOLVERS', () => {
  it('reads ip[:port] entries (port 53 by default), refuses others by name, and warns when private targets are denied without it', () => {
    expect(loadConfig({}).dnsResolvers).toEqual([]);
    expect(loadConfig({ DNS_RESOLVERS: '1.1.1.1, 8.8.8.8:5353,[2606:4700:4700::1111]' }).dnsResolvers).toEqual(['1.1.1.1:53', '8.8.8.8:5353', '[2606:4700:4700::1111]:53']);
    expect(() => loadConfig({ DNS_RESOLVERS: '1.1.1.1,dns.google' })).toThrow("DNS_RESOLVERS must be a comma-separated list of ip or ip:port (got 'dns.google')");
    expect(configWarnings(loadConfig({ ALLOW_PRIVATE_TARGETS: '0' }))).toEqual([expect.stringMatching(/^ALLOW_PRIVATE_TARGETS=0 without DNS_RESOLVERS/)]);
    expect(configWarnings(loadConfig({ ALLOW_PRIVATE_TARGETS: '0', DNS_RESOLVERS: '1.1.1.1' }))).toEqual([]);
  });
});

describe('Stripe settings', () => {
  it('reads STRIPE_API_BASE and PUBLIC_URL (trailing slash dropped) and rejects values that are not http(s) URLs', () => {
    const c = loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_y', STRIPE_API_BASE: 'http://127.0.0.1:12111', PUBLIC_URL: 'https://up.example.com/' });
    expect(c.stripe).toEqual({ secretKey: 'sk_test_x', webhookSecret: 'whsec_y', apiBase: 'http://127.0.0.1:12111' });
    expect(c.publicUrl).toBe('https://up.example.com');
    expect(loadConfig({}).stripe.apiBase).toBeNull();
    expect(() => loadConfig({ STRIPE_API_BASE: 'localhost:12111', PUBLIC_URL: 'up.example.com' })).toThrow(
      "Invalid configuration: STRIPE_API_BASE must be an http(s) origin such as http://127.0.0.1:12111 (got 'localhost:12111'); PUBLIC_URL must be an http(s) URL (got 'up.example.com')",
    );
    expect(JSON.stringify(redactConfig(c))).not.toContain('whsec_y');
  });
});

describe('DATABASE_URL', () => {
  it('is unset by default (SQLite under DATA_DIR), accepts postgres:// and says it is experimental', () => {
    expect(loadConfig({}).databaseUrl).toBeNull();
    const c = loadConfig({ DATABASE_URL: 'postgresql://upfleet:s3cret-pw@db.example:5432/upfleet' });
    expect(c.databaseUrl).toBe('postgresql://upfleet:s3cret-pw@db.example:5432/upfleet');
    expect(JSON.stringify(redactConfig(c))).not.toContain('s3cret-pw');
    expect(configWarnings(c).join(' ')).toContain('DATABASE_URL is experimental');
  });

  it('refuses anything but a postgres URL, without showing its password', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:hunter22@db/x' }))
      .toThrow("Invalid configuration: DATABASE_URL must be a postgres:// URL (got 'mysql://u:redacted@db/x')");
  });
});

describe('ClickHouse URL redaction', () => {
  const url = 'https://upfleet:p%40ss-w0rd@ch.example:8443/?database=upfleet&password=q-secret';
  it('masks the password and password-like query parameters, keeping what helps debugging', () => {
    expect(redactUrl(url)).toBe('https://upfleet:redacted@ch.example:8443/?database=upfleet&password=redacted');
    const shown = JSON.stringify(redactConfig(loadConfig({ CLICKHOUSE_URL: url })));
    expect(shown).not.toContain('w0rd');
    expect(shown).not.toContain('q-secret');
    expect(shown).toContain('ch.example:8443');
  });

  it('removes the password from an error text that quotes the URL or the password', () => {
    expect(redactSecretsIn(`connect to ${url} failed`, url)).not.toContain('w0rd');
    expect(redactSecretsIn('auth failed for p@ss-w0rd', url)).toBe('auth failed for redacted');
  });
});

describe('alert channel settings', () => {
  it('defaults provider base URLs to the providers, lists bad values, and redacts SMTP and Twilio secrets', () => {
    expect(loadConfig({}).alerting).toEqual({
      slackApiUrl: 'https://slack.com/api', telegramApiUrl: 'https://api.telegram.org', pagerdutyApiUrl: 'https://events.pagerduty.com', smtpUrl: null, smtpFrom: null,
      twilio: { apiUrl: 'https://api.twilio.com', accountSid: null, authToken: null, from: null }, groupHoldSeconds: 3,
    });
    expect(loadConfig({ ALERT_GROUP_HOLD_SECONDS: '0' }).alerting.groupHoldSeconds).toBe(0);
    expect(() => loadConfig({ ALERT_GROUP_HOLD_SECONDS: '61' })).toThrow('ALERT_GROUP_HOLD_SECONDS must be a whole number from 0 to 60');
    expect(() => loadConfig({ SMTP_URL: 'mail.example.com', SLACK_API_URL: 'slack', PUBLIC_URL: 'example.com' })).toThrow(
      "Invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL (got 'mail.example.com'); PUBLIC_URL must be an http(s) URL (got 'example.com'); SLACK_API_URL must be an http(s) URL (got 'slack')",
    );
    const c = loadConfig({ SMTP_URL: 'smtp://bob:hunter2@mail.example.com:587', TWILIO_AUTH_TOKEN: 'twilio-secret', TWILIO_ACCOUNT_SID: 'AC1' });
    const shown = JSON.stringify(redactConfig(c));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('twilio-secret');
    expect(shown).toContain('mail.example.com');
  });
});

describe('RATE_LIMIT_API_KEY_PER_MINUTE', () => {
  it('defaults to 600 requests a minute per API key and refuses anything but a positive whole number', () => {
    expect(loadConfig({}).rateLimits.apiKeyPerMinute).toBe(600);
    expect(loadConfig({ RATE_LIMIT_API_KEY_PER_MINUTE: '120' }).rateLimits.apiKeyPerMinute).toBe(120);
    expect(() => loadConfig({ RATE_LIMIT_API_KEY_PER_MINUTE: '0' })).toThrow("RATE_LIMIT_API_KEY_PER_MINUTE must be a whole number from 1 to 1000000 (got '0')");
  });
});
