// The control plane's one configuration schema. Only this file reads process.env.
import path from 'node:path';
import { parseResolver } from '@upfleet/proto/target-syntax';

export interface Config {
  port: number;
  grpcPort: number;
  host: string;
  dataDir: string;
  /** DATABASE_URL (postgres://): experimental, the schema is kept there but state still lives in SQLite. */
  databaseUrl: string | null;
  clickhouseUrl: string | null;
  embeddedAgent: boolean;
  allowPrivateTargets: boolean;
  /** DNS_RESOLVERS: servers (ip or ip:port, as `host:port` strings for dns.Resolver#setServers) the
   *  control plane asks (custom-domain TXT records) and, with ALLOW_PRIVATE_TARGETS=0, the agents ask
   *  for DNS checks that name no resolver. Empty: the system's resolver. */
  dnsResolvers: string[];
  /** Base64 32-byte key for secrets at rest; generated into DATA_DIR when unset. */
  secretKey: string | null;
  grpcTls: { certFile: string | null; keyFile: string | null; insecure: boolean };
  logLevel: string;
  webDistDir: string;
  rateLimits: {
    windowSeconds: number;
    accountFailures: number;
    ipLogins: number;
    ipSignups: number;
    ipRefreshes: number;
    /** Requests a minute per API key (RATE_LIMIT_API_KEY_PER_MINUTE). */
    apiKeyPerMinute: number;
    /** Endpoint and threshold changes per user per minute. */
    endpointMutationsPerMinute: number;
    /** Requests a minute per address to /api/public/* (RATE_LIMIT_PUBLIC_PER_MINUTE). */
    publicPerMinute: number;
  };
  /** How long a stop waits for in-flight HTTP requests before closing their connections. */
  shutdownTimeoutSeconds: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
  refreshReuseGraceSeconds: number;
  agentLeaseSeconds: number;
  /** LEADER_LEASE_SECONDS: how long the leader lease lasts unrenewed (renewed every third of it); a takeover after a crash waits about this long. */
  leaderLeaseSeconds: number;
  /** SCREENSHOTS_MAX_MB: browser-check screenshots under DATA_DIR/screenshots together at most; the oldest go first. */
  screenshotsMaxMb: number;
  /** Workspaces a person may own besides their personal one (MAX_WORKSPACES_PER_USER). */
  maxWorkspacesPerUser: number;
  stripe: { secretKey: string | null; webhookSecret: string | null; apiBase: string | null };
  publicUrl: string | null;
  /** ALLOW_HTTP_INSTALL: /install-agent.sh may be served over plain HTTP to other machines (off: https or loopback only). */
  allowHttpInstall: boolean;
  /** Alert channels: provider base URLs (tests point them at local servers), SMTP and Twilio. */
  alerting: {
    slackApiUrl: string;
    telegramApiUrl: string;
    pagerdutyApiUrl: string;
    smtpUrl: string | null;
    smtpFrom: string | null;
    twilio: { apiUrl: string; accountSid: string | null; authToken: string | null; from: string | null };
    /** ALERT_GROUP_HOLD_SECONDS (0–60, default 3): how long a new incident's first message waits for a storm to form; 0: no grouping. */
    groupHoldSeconds: number;
  };
  /** express 'trust proxy': false, a hop count, or a list such as 'loopback, 10.0.0.0/8'. */
  trustProxy: boolean | number | string;
  /** OpenID Connect sign-in: on when OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set. */
  oidc: OidcConfig | null;
  /** The package new accounts and workspaces start on (DEFAULT_PACKAGE; checked against the packages at start). */
  defaultPackage: string;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The login page's button (OIDC_BUTTON_LABEL). */
  buttonLabel: string;
  /** Every SSO user joins this workspace (OIDC_DEFAULT_WORKSPACE_ID) with OIDC_DEFAULT_ROLE. */
  defaultWorkspaceId: number | null;
  defaultRole: 'admin' | 'editor' | 'viewer';
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];

  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    if (!/^\d+$/.test(raw.trim())) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
      return def;
    }
    const n = Number(raw);
    if (n < min || n > max) problems.push(`${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
    return n;
  };
  const bool = (name: string, def: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    problems.push(`${name} must be 0 or 1 (got '${raw}')`);
    return def;
  };
  const str = (name: string): string | null => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? null : raw.trim();
  };

  const clickhouseUrl = str('CLICKHOUSE_URL');
  if (clickhouseUrl && !/^https?:\/\/[^\s]+$/.test(clickhouseUrl)) {
    problems.push(`CLICKHOUSE_URL must be an http(s) URL (got '${redactUrl(clickhouseUrl)}')`);
  }
  const databaseUrl = str('DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\/[^\s]+$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be a postgres:// URL (got '${redactUrl(databaseUrl)}')`);
  }
  const secretKey = str('SECRET_KEY');
  if (secretKey && Buffer.from(secretKey, 'base64').length !== 32) {
    problems.push('SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32)');
  }
  const stripeApiBase = str('STRIPE_API_BASE');
  if (stripeApiBase && !/^https?:\/\/[^\s/]+\/?$/.test(stripeApiBase)) {
    problems.push(`STRIPE_API_BASE must be an http(s) origin such as http://127.0.0.1:12111 (got '${stripeApiBase}')`);
  }
  const httpUrl = (name: string, def: string): string => {
    const v = str(name) ?? def;
    if (!/^https?:\/\/[^\s]+$/.test(v)) problems.push(`${name} must be an http(s) URL (got '${v}')`);
    return v;
  };
  const smtpUrl = str('SMTP_URL');
  if (smtpUrl && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) problems.push(`SMTP_URL must be an smtp:// or smtps:// URL (got '${smtpUrl}')`);
  const publicUrl = str('PUBLIC_URL');
  if (publicUrl && !/^https?:\/\/[^\s]+$/.test(publicUrl)) problems.push(`PUBLIC_URL must be an http(s) URL (got '${publicUrl}')`);
  const dnsResolvers: string[] = [];
  for (const raw of (str('DNS_RESOLVERS') ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
    const r = parseResolver(raw);
    if (!r) problems.push(`DNS_RESOLVERS must be a comma-separated list of ip or ip:port (got '${raw}')`);
    else dnsResolvers.push(r.address.includes(':') ? `[${r.address}]:${r.port}` : `${r.address}:${r.port}`);
  }
  const logLevel = str('LOG_LEVEL') ?? 'info';
  const oidcIssuer = str('OIDC_ISSUER');
  const oidcClientId = str('OIDC_CLIENT_ID');
  const oidcClientSecret = str('OIDC_CLIENT_SECRET');
  let oidc: OidcConfig | null = null;
  if (oidcIssuer || oidcClientId || oidcClientSecret) {
    if (!oidcIssuer || !oidcClientId || !oidcClientSecret) problems.push('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together');
    if (oidcIssuer && !/^https?:\/\/[^\s]+$/.test(oidcIssuer)) problems.push(`OIDC_ISSUER must be an http(s) URL (got '${oidcIssuer}')`);
    const role = str('OIDC_DEFAULT_ROLE') ?? 'viewer';
    if (!['admin', 'editor', 'viewer'].includes(role)) problems.push(`OIDC_DEFAULT_ROLE must be admin, editor or viewer (got '${role}')`);
    const ws = str('OIDC_DEFAULT_WORKSPACE_ID');
    if (ws && !/^[1-9]\d*$/.test(ws)) problems.push(`OIDC_DEFAULT_WORKSPACE_ID must be a workspace id (got '${ws}')`);
    oidc = {
      issuer: oidcIssuer ?? '', clientId: oidcClientId ?? '', clientSecret: oidcClientSecret ?? '',
      buttonLabel: str('OIDC_BUTTON_LABEL') ?? 'Sign in with SSO',
      defaultWorkspaceId: ws && /^[1-9]\d*$/.test(ws) ? Number(ws) : null,
      defaultRole: role as OidcConfig['defaultRole'],
    };
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got '${logLevel}')`);
  }

  const config: Config = {
    port: int('PORT', 8080, 0, 65535),
    grpcPort: int('GRPC_PORT', 50051, 0, 65535),
    host: str('HOST') ?? '0.0.0.0',
    dataDir: path.resolve(cwd, str('DATA_DIR') ?? './data'),
    databaseUrl,
    clickhouseUrl,
    embeddedAgent: bool('EMBEDDED_AGENT', true),
    allowPrivateTargets: bool('ALLOW_PRIVATE_TARGETS', true),
    dnsResolvers,
    secretKey,
    grpcTls: {
      certFile: str('GRPC_TLS_CERT'),
      keyFile: str('GRPC_TLS_KEY'),
      insecure: bool('GRPC_INSECURE', false),
    },
    logLevel,
    webDistDir: path.resolve(cwd, str('WEB_DIST_DIR') ?? path.join(import.meta.dirname, '../../web/dist')),
    rateLimits: {
      windowSeconds: int('RATE_LIMIT_WINDOW_SECONDS', 900, 1, 86400),
      accountFailures: int('RATE_LIMIT_ACCOUNT_FAILURES', 10, 1, 100000),
      ipLogins: int('RATE_LIMIT_IP_LOGINS', 60, 1, 1000000),
      ipSignups: int('RATE_LIMIT_IP_SIGNUPS', 20, 1, 1000000),
      ipRefreshes: int('RATE_LIMIT_IP_REFRESHES', 60, 1, 1000000),
      apiKeyPerMinute: int('RATE_LIMIT_API_KEY_PER_MINUTE', 600, 1, 1000000),
      endpointMutationsPerMinute: int('RATE_LIMIT_ENDPOINT_MUTATIONS_PER_MINUTE', 60, 1, 1000000),
      publicPerMinute: int('RATE_LIMIT_PUBLIC_PER_MINUTE', 300, 1, 1000000),
    },
    shutdownTimeoutSeconds: int('SHUTDOWN_TIMEOUT_SECONDS', 10, 0, 3600),
    accessTokenTtlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 900, 5, 86400),
    refreshTokenTtlDays: int('REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
    refreshReuseGraceSeconds: int('REFRESH_REUSE_GRACE_SECONDS', 10, 0, 300),
    agentLeaseSeconds: int('AGENT_LEASE_SECONDS', 15, 3, 600),
    leaderLeaseSeconds: int('LEADER_LEASE_SECONDS', 10, 3, 300),
    screenshotsMaxMb: int('SCREENSHOTS_MAX_MB', 1024, 1, 1_000_000),
    maxWorkspacesPerUser: int('MAX_WORKSPACES_PER_USER', 10, 0, 100000),
    stripe: {
      secretKey: str('STRIPE_SECRET_KEY'),
      webhookSecret: str('STRIPE_WEBHOOK_SECRET'),
      apiBase: stripeApiBase,
    },
    publicUrl: publicUrl && publicUrl.replace(/\/+$/, ''),
    allowHttpInstall: bool('ALLOW_HTTP_INSTALL', false),
    oidc,
    defaultPackage: str('DEFAULT_PACKAGE') ?? 'Free',
    alerting: {
      slackApiUrl: httpUrl('SLACK_API_URL', 'https://slack.com/api'),
      telegramApiUrl: httpUrl('TELEGRAM_API_URL', 'https://api.telegram.org'),
      pagerdutyApiUrl: httpUrl('PAGERDUTY_API_URL', 'https://events.pagerduty.com'),
      smtpUrl,
      smtpFrom: str('SMTP_FROM'),
      twilio: {
        apiUrl: httpUrl('TWILIO_API_URL', 'https://api.twilio.com'),
        accountSid: str('TWILIO_ACCOUNT_SID'),
        authToken: str('TWILIO_AUTH_TOKEN'),
        from: str('TWILIO_FROM'),
      },
      groupHoldSeconds: int('ALERT_GROUP_HOLD_SECONDS', 3, 0, 60),
    },
    trustProxy: (() => {
      const raw = str('TRUST_PROXY');
      if (raw === null || raw === '0' || raw === 'false') return false;
      if (/^\d+$/.test(raw)) return Number(raw);
      if (raw === 'true') return 1;
      return raw;
    })(),
  };
  if ((config.grpcTls.certFile === null) !== (config.grpcTls.keyFile === null)) {
    problems.push('GRPC_TLS_CERT and GRPC_TLS_KEY must be set together');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return config;
}

/** Settings that work but are risky, logged as warnings at start. */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  // A hop count trusts whatever X-Forwarded-For a direct client sends: on a port reachable from
  // anywhere, anyone chooses the address per-address limits see.
  if (typeof config.trustProxy === 'number' && (config.host === '0.0.0.0' || config.host === '::')) {
    warnings.push(`TRUST_PROXY=${config.trustProxy} (a hop count) with HOST=${config.host}: a client reaching the port directly can choose the address ` +
      'every per-address limit sees through X-Forwarded-For. Set TRUST_PROXY to the proxy\'s addresses (e.g. loopback or 10.0.0.5) or listen on HOST=127.0.0.1 behind the proxy.');
  }
  if (config.databaseUrl) {
    warnings.push('DATABASE_URL is experimental: the Postgres schema is created and migrated there, but this version still keeps all state ' +
      'in SQLite under DATA_DIR. Run one process only.');
  }
  if (!config.allowPrivateTargets && config.dnsResolvers.length === 0) {
    warnings.push('ALLOW_PRIVATE_TARGETS=0 without DNS_RESOLVERS: DNS checks that name no resolver ask each agent\'s system resolver, ' +
      'which may answer for private names. Set DNS_RESOLVERS to public resolvers (e.g. 1.1.1.1,8.8.8.8).');
  }
  return warnings;
}

/** A URL with its password (and any password-like query parameter) masked, for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'redacted';
    for (const key of [...u.searchParams.keys()]) {
      if (/pass|secret|token|key/i.test(key)) u.searchParams.set(key, 'redacted');
    }
    return u.toString();
  } catch {
    // Not parseable as a URL: mask anything between '://user:' and '@'.
    return url.replace(/(\/\/[^/:@\s]*:)[^@\s]*@/, '$1redacted@');
  }
}

/** Replaces every occurrence of a secret URL's password in a text (an error message). */
export function redactSecretsIn(text: string, url: string | null): string {
  if (!url) return text;
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  if (!password) return text;
  return text.split(url).join(redactUrl(url)).split(password).join('redacted').split(encodeURIComponent(password)).join('redacted');
}

/** The config with secrets masked, for the start-up log line. */
export function redactConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    databaseUrl: config.databaseUrl ? redactUrl(config.databaseUrl) : null,
    clickhouseUrl: config.clickhouseUrl ? redactUrl(config.clickhouseUrl) : null,
    secretKey: config.secretKey ? '[redacted]' : null,
    alerting: {
      ...config.alerting,
      smtpUrl: config.alerting.smtpUrl ? config.alerting.smtpUrl.replace(/\/\/[^@/]*@/, '//[redacted]@') : null,
      twilio: { ...config.alerting.twilio, authToken: config.alerting.twilio.authToken ? '[redacted]' : null },
    },
    stripe: { ...config.stripe, secretKey: config.stripe.secretKey ? '[redacted]' : null, webhookSecret: config.stripe.webhookSecret ? '[redacted]' : null },
  };
}
