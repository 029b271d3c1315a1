// Alert thresholds per endpoint and alert methods (notification channels) per user.
import { MASK_CHAR, MESSAGES, PLATFORM_FIELDS, SECRET_FIELDS, type AlertMethod, type AlertPlatform, type AlertThreshold, type Feature } from '@upfleet/proto/rest';
import { platformConfig, type AlertMethodCreateBody, type AlertMethodUpdateBody, type AlertSettingsBody, type AlertThresholdsBody } from '@upfleet/proto/schemas';
import { AppError, badRequest, conflict, notFound } from '../errors';
import type { AttemptId, LimitBucket, RateLimiter } from '../services/rate-limiter';
import type { SecretBox } from '../lib/crypto';
import { regionLabel, type CatalogRepo } from '../store/catalog-repo';
import type { AlertsRepo, AlertMethodRow } from './settings-repo';
import { DEFAULT_GROUP_THRESHOLD, type StormsRepo } from './storms-repo';
import type { EndpointsRepo } from '../store/endpoints-repo';
import { parseInput } from '../services/validation';
import { createSigningSecret } from './channels/webhook';

/** Test sends a user, and a method, may make per 10 minutes (each bucket: 429 with Retry-After). */
export { TEST_SEND_LIMITED, TEST_SENDS_PER_WINDOW } from '../services/rate-limiter';
export const SMS_TEST_NEEDS_PLAN = 'SMS test messages need a plan with advanced alerts';
export const VERIFY_EMAIL_FIRST = 'Verify your email address first: email and SMS alerts are sent only for verified accounts';

/** All but the last 4 characters masked; a URL keeps its origin so the user can tell which one it is. */
export function maskSecret(field: string, value: string): string {
  let keep = 0;
  if (field === 'webhook_url') {
    try {
      // Origin and the first '/' stay, so the masked value is still a URL the edit form accepts.
      const origin = new URL(value).origin;
      keep = value.startsWith(origin) ? origin.length + (value[origin.length] === '/' ? 1 : 0) : 0;
    } catch {
      keep = 0;
    }
  }
  const rest = value.slice(keep);
  const shown = rest.length > 4 ? rest.slice(-4) : '';
  return value.slice(0, keep) + MASK_CHAR.repeat(rest.length - shown.length) + shown;
}

const isSecretField = (f: string) => (SECRET_FIELDS as readonly string[]).includes(f);

/** Sensible starting points shown before a user saves thresholds (disabled until enabled). */
const DEFAULT_THRESHOLDS: Record<Feature, { value: number; operator: string }> = {
  response_time: { value: 2000, operator: '>' },
  response_code: { value: 400, operator: '>=' },
  ping_host: { value: 500, operator: '>' },
  cert_expiry: { value: 14, operator: '<' },
};

export function createAlertService(deps: {
  alerts: AlertsRepo; endpoints: EndpointsRepo; catalog: CatalogRepo; box: SecretBox;
  /** Thresholds saved: the evaluator re-reads them and drops conditions that are gone. */
  onThresholdsChanged?: (urlId: number) => void;
  /** Counts test sends (test_send_user, test_send_method); unset: unlimited (unit tests). */
  limiter?: RateLimiter;
  /** Whether the user's plan includes advanced alerts (SMS test sends cost the operator money). */
  advancedAlerts?: (userId: number) => boolean | Promise<boolean>;
  /** Whether the user's email is verified (always true without SMTP). */
  emailVerified?: (userId: number) => boolean | Promise<boolean>;
  /** The workspace's storm settings (its group threshold); absent: the default, unchangeable. */
  storms?: Pick<StormsRepo, 'threshold' | 'setThreshold'>;
  now?: () => number;
}) {
  const { alerts, catalog } = deps;

  function requireEndpoint(userId: number, urlId: number) {
    const e = deps.endpoints.get(userId, urlId);
    if (!e) throw notFound('Endpoint not found');
    return e;
  }

  function storedConfig(row: AlertMethodRow): Record<string, string> {
    try {
      return JSON.parse(deps.box.open(row.config_enc)) as Record<string, string>;
    } catch {
      return {};
    }
  }

  /** The method as answered over REST: secrets masked, the webhook signing secret left out. */
  function toMethod(row: AlertMethodRow): AlertMethod {
    const stored = storedConfig(row);
    const platform = row.platform as AlertPlatform;
    const config: Record<string, string> = {};
    for (const f of PLATFORM_FIELDS[platform] ?? []) {
      if (stored[f] !== undefined) config[f] = isSecretField(f) ? maskSecret(f, stored[f]) : stored[f];
    }
    return { alert_method_id: row.alert_method_id, platform, is_enabled: Boolean(row.is_enabled), platform_config: config };
  }

  return {
    listThresholds(userId: number, urlId: number): AlertThreshold[] {
      const endpoint = requireEndpoint(userId, urlId);
      const types = catalog.listMonitorTypes();
      const regions = new Map(catalog.listRegions().map((r) => [r.region_id, r]));
      const stored = alerts.thresholds(userId, urlId);
      const out: AlertThreshold[] = stored.map((t) => {
        const type = types.find((m) => m.monitor_type_id === t.monitor_type_id)!;
        const region = t.region_id === null ? undefined : regions.get(t.region_id);
        return {
          threshold_id: t.threshold_id,
          monitor_type_id: t.monitor_type_id,
          threshold_value: t.threshold_value,
          threshold_operator: t.threshold_operator as AlertThreshold['threshold_operator'],
          is_enabled: Boolean(t.is_enabled),
          region_id: t.region_id,
          monitor_type: type.type_code,
          display_name: type.display_name,
          region_name: region ? regionLabel(region) : null,
        };
      });
      // Features the endpoint monitors but that have no saved threshold yet get a disabled default.
      for (const type of types) {
        if (!endpoint[type.type_code] || out.some((t) => t.monitor_type_id === type.monitor_type_id)) continue;
        const d = DEFAULT_THRESHOLDS[type.type_code];
        out.push({
          threshold_id: 0, monitor_type_id: type.monitor_type_id, threshold_value: d.value,
          threshold_operator: d.operator as AlertThreshold['threshold_operator'], is_enabled: false, region_id: null,
          monitor_type: type.type_code, display_name: type.display_name, region_name: null,
        });
      }
      return out.sort((a, b) => a.monitor_type_id - b.monitor_type_id);
    },

    saveThresholds(userId: number, urlId: number, { alert_thresholds: items }: AlertThresholdsBody) {
      requireEndpoint(userId, urlId);
      const typeIds = new Set(catalog.listMonitorTypes().map((t) => t.monitor_type_id));
      const regionIds = new Set(catalog.listRegions().map((r) => r.region_id));
      for (const t of items) {
        if (!typeIds.has(t.monitor_type_id)) throw badRequest('Unknown monitor_type_id');
        if (t.region_id !== null && !regionIds.has(t.region_id)) throw badRequest('Unknown region_id');
      }
      const seen = new Set<string>();
      for (const i of items) {
        const k = `${i.monitor_type_id}:${i.region_id}`;
        if (seen.has(k)) throw badRequest('Each monitor type and region may have one threshold');
        seen.add(k);
      }
      alerts.replaceThresholds(userId, urlId, items);
      deps.onThresholdsChanged?.(urlId);
      return this.listThresholds(userId, urlId);
    },

    listMethods: (userId: number) => alerts.methods(userId).map(toMethod),

    createMethod(userId: number, { platform, platform_config: parsed, is_enabled: enabled }: AlertMethodCreateBody): AlertMethod & { signing_secret?: string } {
      if (alerts.hasPlatform(userId, platform)) throw conflict(MESSAGES.duplicatePlatform);
      const config: Record<string, string> = { ...parsed };
      // A webhook gets its own signing secret, shown once here and again on request (edit form).
      const signingSecret = platform === 'webhook' ? createSigningSecret() : undefined;
      if (signingSecret) config.signing_secret = signingSecret;
      try {
        const id = alerts.insertMethod(userId, platform, enabled, deps.box.seal(JSON.stringify(config)));
        return { ...toMethod(alerts.method(userId, id)!), ...(signingSecret ? { signing_secret: signingSecret } : {}) };
      } catch (e) {
        if (String((e as Error).message).includes('UNIQUE')) throw conflict(MESSAGES.duplicatePlatform);
        throw e;
      }
    },

    updateMethod(userId: number, id: number, body: AlertMethodUpdateBody): AlertMethod {
      const row = alerts.method(userId, id);
      if (!row) throw notFound('Alert method not found');
      const platform = row.platform as AlertPlatform;
      const stored = storedConfig(row);
      if (body.platform !== undefined && body.platform !== platform) throw badRequest('The platform of an alert method cannot be changed');
      const enabled = body.is_enabled ?? Boolean(row.is_enabled);
      let config = stored;
      if (body.platform_config !== undefined) {
        // A secret sent back exactly as GET masked it means "unchanged": keep the stored value.
        const incoming: Record<string, unknown> = { ...body.platform_config };
        for (const f of SECRET_FIELDS) {
          if (stored[f] !== undefined && incoming[f] === maskSecret(f, stored[f])) incoming[f] = stored[f];
        }
        // The config's rules depend on the stored platform, so this part of the body is parsed here.
        config = { ...parseInput<Record<string, string>>(platformConfig(platform), incoming) };
        if (stored.signing_secret) config.signing_secret = stored.signing_secret;
      }
      alerts.updateMethod(userId, id, enabled, deps.box.seal(JSON.stringify(config)));
      return toMethod(alerts.method(userId, id)!);
    },

    /** Before a test send: the method is the user's, email/SMS only for a verified account, SMS only
     *  on a plan with advanced alerts, and at most TEST_SENDS_PER_WINDOW per workspace, per person
     *  (`personId`: the member asking, across all their workspaces) and per method in 10 minutes
     *  (all checked, then all counted; a refusal while counting takes back what was counted). */
    async admitTestSend(userId: number, id: number, personId: number = userId): Promise<void> {
      const row = alerts.method(userId, id);
      if (!row) throw notFound('Alert method not found');
      const paid = row.platform === 'sms' || row.platform === 'email';
      if (paid && deps.emailVerified && !(await deps.emailVerified(userId))) throw new AppError('forbidden', VERIFY_EMAIL_FIRST);
      if (row.platform === 'sms' && deps.advancedAlerts && !(await deps.advancedAlerts(userId))) throw new AppError('forbidden', SMS_TEST_NEEDS_PLAN);
      if (!deps.limiter) return;
      const buckets: Array<[LimitBucket, string]> = [['test_send_user', String(userId)], ['test_send_person', String(personId)], ['test_send_method', String(id)]];
      for (const [bucket, key] of buckets) await deps.limiter.check(bucket, key);
      const taken: AttemptId[] = [];
      try {
        for (const [bucket, key] of buckets) taken.push(await deps.limiter.consume(bucket, key));
      } catch (err) {
        for (const attempt of taken) await deps.limiter.undo(attempt);
        throw err;
      }
    },

    /** The webhook signing secret, for the edit form. */
    signingSecret(userId: number, id: number): { signing_secret: string } {
      const row = alerts.method(userId, id);
      if (!row) throw notFound('Alert method not found');
      const secret = storedConfig(row).signing_secret;
      if (!secret) throw badRequest('Only webhook alert methods have a signing secret');
      return { signing_secret: secret };
    },

    deleteMethod(userId: number, id: number) {
      if (!alerts.deleteMethod(userId, id)) throw notFound('Alert method not found');
      return { alert_method_id: id };
    },

    /** The workspace's alerting settings: how many openings within 60 s make a storm (grouped messages). */
    settings(userId: number): { group_threshold: number } {
      return { group_threshold: deps.storms?.threshold(userId) ?? DEFAULT_GROUP_THRESHOLD };
    },
    saveSettings(userId: number, body: AlertSettingsBody): { group_threshold: number } {
      if (!deps.storms) throw badRequest('Alert settings cannot be changed on this server');
      deps.storms.setThreshold(userId, body.group_threshold, (deps.now ?? Date.now)());
      return { group_threshold: deps.storms.threshold(userId) };
    },
  };
}
export type AlertService = ReturnType<typeof createAlertService>;
