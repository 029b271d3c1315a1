// Alert thresholds per endpoint and alert methods (notification channels) per user.
import {
  ALERT_PLATFORMS, MASK_CHAR, MESSAGES, PLATFORM_FIELDS, SECRET_FIELDS, THRESHOLD_OPERATORS,
  type AlertMethod, type AlertPlatform, type AlertThreshold, type AlertThresholdInput, type Feature,
} from '@upfleet/proto/rest';
import { badRequest, conflict, notFound } from '../errors';
import type { SecretBox } from '../lib/crypto';
import { regionLabel, type CatalogRepo } from '../store/catalog-repo';
import type { AlertsRepo, AlertMethodRow } from '../store/alerts-repo';
import type { EndpointsRepo } from '../store/endpoints-repo';
import { EMAIL_RE, validateHttpUrl } from './validation';
import { createSigningSecret } from '../alerting/channels/webhook';

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

  function parseConfig(platform: AlertPlatform, raw: unknown): Record<string, string> {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('platform_config is required');
    const src = raw as Record<string, unknown>;
    const out: Record<string, string> = {};
    for (const field of PLATFORM_FIELDS[platform]) {
      const v = src[field];
      if (typeof v !== 'string' || v.trim() === '') throw badRequest(`${field} is required`);
      if (v.length > 2048) throw badRequest(`${field} is too long`);
      out[field] = v.trim();
    }
    if (platform === 'email' && !EMAIL_RE.test(out.email_address)) throw badRequest('Please enter a valid email address');
    if (platform === 'webhook' || platform === 'discord' || platform === 'teams') validateHttpUrl(out.webhook_url, 'Webhook URL');
    if (platform === 'sms' && !/^\+?[0-9 ()-]{6,20}$/.test(out.phone_number)) throw badRequest('Please enter a valid phone number');
    if (platform === 'telegram' && !/^-?\d+$|^@\w+$/.test(out.chat_id)) throw badRequest('chat_id must be a numeric chat id or @channel');
    return out;
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

    saveThresholds(userId: number, urlId: number, body: Record<string, unknown>) {
      requireEndpoint(userId, urlId);
      const list = body.alert_thresholds;
      if (!Array.isArray(list)) throw badRequest('alert_thresholds must be a list');
      if (list.length > 100) throw badRequest('Too many thresholds');
      const typeIds = new Set(catalog.listMonitorTypes().map((t) => t.monitor_type_id));
      const regionIds = new Set(catalog.listRegions().map((r) => r.region_id));
      const items: AlertThresholdInput[] = list.map((raw) => {
        const t = (raw ?? {}) as Record<string, unknown>;
        const value = t.threshold_value;
        if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw badRequest(MESSAGES.invalidThresholds);
        if (!THRESHOLD_OPERATORS.includes(t.threshold_operator as never)) {
          throw badRequest(`threshold_operator must be one of ${THRESHOLD_OPERATORS.join(' ')}`);
        }
        if (typeof t.monitor_type_id !== 'number' || !typeIds.has(t.monitor_type_id)) throw badRequest('Unknown monitor_type_id');
        const regionId = t.region_id ?? null;
        if (regionId !== null && (typeof regionId !== 'number' || !regionIds.has(regionId))) throw badRequest('Unknown region_id');
        return {
          monitor_type_id: t.monitor_type_id,
          threshold_value: value,
          threshold_operator: t.threshold_operator as AlertThresholdInput['threshold_operator'],
          is_enabled: t.is_enabled !== false,
          region_id: regionId as number | null,
        };
      });
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

    createMethod(userId: number, body: Record<string, unknown>): AlertMethod & { signing_secret?: string } {
      const platform = body.platform;
      if (typeof platform !== 'string' || !ALERT_PLATFORMS.includes(platform as AlertPlatform)) {
        throw badRequest(`platform must be one of ${ALERT_PLATFORMS.join(', ')}`);
      }
      const config = parseConfig(platform as AlertPlatform, body.platform_config);
      if (alerts.hasPlatform(userId, platform)) throw conflict(MESSAGES.duplicatePlatform);
      const enabled = body.is_enabled === undefined ? true : body.is_enabled;
      if (typeof enabled !== 'boolean') throw badRequest('is_enabled must be true or false');
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

    updateMethod(userId: number, id: number, body: Record<string, unknown>): AlertMethod {
      const row = alerts.method(userId, id);
      if (!row) throw notFound('Alert method not found');
      const platform = row.platform as AlertPlatform;
      const stored = storedConfig(row);
      if (body.platform !== undefined && body.platform !== platform) throw badRequest('The platform of an alert method cannot be changed');
      const enabled = body.is_enabled === undefined ? Boolean(row.is_enabled) : body.is_enabled;
      if (typeof enabled !== 'boolean') throw badRequest('is_enabled must be true or false');
      let config = stored;
      if (body.platform_config !== undefined) {
        // A secret sent back exactly as GET masked it means "unchanged": keep the stored value.
        const raw = body.platform_config;
        const incoming = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as Record<string, unknown>) } : raw;
        if (incoming && typeof incoming === 'object') {
          const fields = incoming as Record<string, unknown>;
          for (const f of SECRET_FIELDS) {
            if (stored[f] !== undefined && fields[f] === maskSecret(f, stored[f])) fields[f] = stored[f];
          }
        }
        config = parseConfig(platform, incoming);
        if (stored.signing_secret) config.signing_secret = stored.signing_secret;
      }
      alerts.updateMethod(userId, id, enabled, deps.box.seal(JSON.stringify(config)));
      return toMethod(alerts.method(userId, id)!);
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
  };
}
export type AlertService = ReturnType<typeof createAlertService>;
