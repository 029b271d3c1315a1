// Alert thresholds per endpoint and alert methods (notification channels) per user.
import { z } from 'zod';
import { ALERT_PLATFORMS, INCIDENT_STATES, MESSAGES, THRESHOLD_OPERATORS, type AlertPlatform } from '../rest';
import { isEmail, isHttpUrl } from './common';

export const ThresholdValue = z
  .number({ error: MESSAGES.invalidThresholds })
  .int(MESSAGES.invalidThresholds)
  .positive(MESSAGES.invalidThresholds);

export const AlertThresholdItem = z
  .object(
    {
      threshold_value: ThresholdValue,
      threshold_operator: z.enum(THRESHOLD_OPERATORS, { error: `threshold_operator must be one of ${THRESHOLD_OPERATORS.join(' ')}` }),
      monitor_type_id: z.number({ error: 'Unknown monitor_type_id' }).int('Unknown monitor_type_id'),
      region_id: z.number({ error: 'Unknown region_id' }).int('Unknown region_id').nullish().transform((v) => v ?? null),
      is_enabled: z.boolean({ error: 'is_enabled must be true or false' }).default(true),
    },
    { error: MESSAGES.invalidThresholds },
  )
  .meta({ id: 'AlertThresholdItem' });
export type AlertThresholdItem = z.infer<typeof AlertThresholdItem>;

export const AlertThresholdsBody = z
  .object({
    alert_thresholds: z.array(AlertThresholdItem, { error: 'alert_thresholds must be a list' }).max(100, 'Too many thresholds'),
  })
  .meta({ id: 'AlertThresholdsBody', description: 'PUT /api/users/endpoints/:id/alert-thresholds (replaces all)' });
export type AlertThresholdsBody = z.infer<typeof AlertThresholdsBody>;

const configField = (field: string) =>
  z.string({ error: `${field} is required` }).trim().min(1, `${field} is required`).max(2048, `${field} is too long`);

/** A platform's config object; anything but an object (absent, null, a list) says it is required. */
const config = <S extends z.ZodRawShape>(shape: S) => z.object(shape, { error: 'platform_config is required' });

const webhookConfig = config({
  webhook_url: configField('webhook_url').refine(isHttpUrl, 'Webhook URL must be a valid URL'),
});

/** Config fields per platform (SPEC section 3), each required, with the platform's own rule. */
export const PLATFORM_CONFIG = {
  email: config({ email_address: configField('email_address').refine(isEmail, 'Please enter a valid email address') }),
  slack: config({ bot_token: configField('bot_token'), channel: configField('channel') }),
  telegram: config({
    bot_token: configField('bot_token'),
    chat_id: configField('chat_id').regex(/^-?\d+$|^@\w+$/, 'chat_id must be a numeric chat id or @channel'),
  }),
  webhook: webhookConfig,
  discord: webhookConfig,
  teams: webhookConfig,
  sms: config({ phone_number: configField('phone_number').regex(/^\+?[0-9 ()-]{6,20}$/, 'Please enter a valid phone number') }),
  /** An Events API v2 integration key of a PagerDuty service (32 characters). */
  pagerduty: config({ routing_key: configField('routing_key').regex(/^[A-Za-z0-9]{32}$/, 'routing_key must be the 32-character integration key of a PagerDuty service (Events API v2)') }),
} satisfies Record<AlertPlatform, z.ZodType>;

/** `platform_config` for one platform. */
export const platformConfig = <P extends AlertPlatform>(platform: P): (typeof PLATFORM_CONFIG)[P] => PLATFORM_CONFIG[platform];

const platformError = `platform must be one of ${ALERT_PLATFORMS.join(', ')}`;
const isEnabled = z.boolean({ error: 'is_enabled must be true or false' });

const methodOf = <P extends AlertPlatform>(platform: P) =>
  z.object({ platform: z.literal(platform), platform_config: platformConfig(platform), is_enabled: isEnabled.default(true) });

export const AlertMethodCreateBody = z
  .discriminatedUnion(
    'platform',
    [methodOf('email'), methodOf('slack'), methodOf('telegram'), methodOf('webhook'), methodOf('sms'), methodOf('discord'), methodOf('teams'), methodOf('pagerduty')],
    { error: platformError },
  )
  .meta({ id: 'AlertMethodCreateBody', description: 'POST /api/users/alert-methods (one method per platform)' });
export type AlertMethodCreateBody = z.infer<typeof AlertMethodCreateBody>;

/** The platform cannot change; platform_config is checked against the stored method's platform by the service. */
export const AlertMethodUpdateBody = z
  .object({
    platform: z.enum(ALERT_PLATFORMS, { error: platformError }).optional(),
    is_enabled: isEnabled.optional(),
    platform_config: z.record(z.string(), z.unknown(), { error: 'platform_config is required' }).optional(),
  })
  .meta({ id: 'AlertMethodUpdateBody', description: 'PUT /api/users/alert-methods/:id' });
export type AlertMethodUpdateBody = z.infer<typeof AlertMethodUpdateBody>;

/** GET /api/users/incidents: optionally one endpoint (endpoint_id or url_id), optionally by status or state. */
export const IncidentsQuery = z
  .object({
    endpoint_id: z
      .string({ error: 'endpoint_id must be a positive whole number' })
      .regex(/^[1-9]\d{0,15}$/, 'endpoint_id must be a positive whole number')
      .transform(Number)
      .optional(),
    status: z.enum(['open', 'resolved'], { error: 'status must be open or resolved' }).optional(),
    /** open: neither acknowledged nor resolved (status=open also counts acknowledged ones). */
    state: z.enum(INCIDENT_STATES, { error: 'state must be open, acknowledged or resolved' }).optional(),
    url_id: z
      .string({ error: 'url_id must be a positive whole number' })
      .regex(/^[1-9]\d{0,15}$/, 'url_id must be a positive whole number')
      .transform(Number)
      .optional(),
  })
  .meta({ id: 'IncidentsQuery', description: 'GET /api/users/incidents (newest first)' });
export type IncidentsQuery = z.infer<typeof IncidentsQuery>;

/** PUT /api/users/alert-settings: a workspace's alerting settings. */
export const AlertSettingsBody = z
  .object({
    /** More than this many incidents opening within 60 s are a storm: each method gets one grouped message. */
    group_threshold: z
      .number({ error: 'group_threshold must be a whole number from 2 to 100' })
      .int('group_threshold must be a whole number from 2 to 100')
      .min(2, 'group_threshold must be a whole number from 2 to 100')
      .max(100, 'group_threshold must be a whole number from 2 to 100'),
  })
  .strict()
  .meta({ id: 'AlertSettingsBody', description: 'PUT /api/users/alert-settings' });
export type AlertSettingsBody = z.infer<typeof AlertSettingsBody>;

export const AlertSettingsResource = z
  .object({ group_threshold: z.number().int().meta({ description: 'More than this many incidents opening within 60 s are grouped into one message per method (default 5)' }) })
  .meta({ id: 'AlertSettings' });
