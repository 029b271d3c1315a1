// Monitoring as code: one monitor of `upfleet monitors apply -f monitors.yaml`. Its fields take the
// endpoint body's rules (and messages) from endpoints.ts and the threshold rule from alerts.ts.
import { z } from 'zod';
import { FEATURES, THRESHOLD_OPERATORS } from '../rest';
import { ThresholdValue } from './alerts';
import { EndpointCreateBody, EndpointFields, MonitorUrl, RegionKeys, checkKindRules } from './endpoints';

const featureError = `features must be a list of ${FEATURES.join(', ')}`;
const regionName = z.string({ error: 'region must be a region name such as EU-Germany' }).trim().min(1, 'region must be a region name such as EU-Germany');

export const MonitorThresholdSpec = z.strictObject({
  type: z.enum(FEATURES, { error: `type must be one of ${FEATURES.join(', ')}` }),
  operator: z.enum(THRESHOLD_OPERATORS, { error: `operator must be one of ${THRESHOLD_OPERATORS.join(' ')}` }),
  value: ThresholdValue,
  enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
  /** A region key; absent means every region. */
  region: regionName.nullish().transform((v) => v ?? null),
});
export type MonitorThresholdSpec = z.infer<typeof MonitorThresholdSpec>;

export const MonitorSpec = z.strictObject({
  name: EndpointCreateBody.shape.name,
  /** The endpoint's kind and check, as the API takes them (url only for http). */
  kind: EndpointFields.shape.kind,
  url: MonitorUrl.optional(),
  target: EndpointFields.shape.target,
  record_type: EndpointFields.shape.record_type,
  resolver: EndpointFields.shape.resolver,
  request: EndpointFields.shape.request,
  assertions: EndpointFields.shape.assertions,
  period_seconds: EndpointFields.shape.period_seconds,
  cron: EndpointFields.shape.cron,
  timezone: EndpointFields.shape.timezone,
  grace_seconds: EndpointFields.shape.grace_seconds,
  description: EndpointCreateBody.shape.description,
  /** The endpoint's own check interval; absent: the plan's. */
  check_frequency_seconds: EndpointFields.shape.check_frequency_seconds,
  /** The workspace's escalation policy (its id) and the endpoint it depends on (its url_id); absent: left as they are. */
  escalation_policy_id: EndpointFields.shape.escalation_policy_id,
  depends_on: EndpointFields.shape.depends_on,
  /** The endpoint's SLO; absent: none (and a 30-day window). */
  slo_target: EndpointFields.shape.slo_target,
  slo_window_days: EndpointFields.shape.slo_window_days,
  /** browser: the steps and the run's timeout. */
  steps: EndpointFields.shape.steps,
  timeout_seconds: EndpointFields.shape.timeout_seconds,
  /** Absent or empty: the primary region (as the API does). */
  regions: RegionKeys,
  /** Absent: response_code only (the API's default). */
  features: z
    .array(z.enum(FEATURES, { error: featureError }), { error: featureError })
    .nullish()
    .transform((v) => [...new Set(v ?? ['response_code' as const])]),
  monitoring: z.boolean({ error: 'monitoring must be true or false' }).nullish().transform((v) => v ?? true),
  /** Absent: none (the file says what the account has). */
  alert_thresholds: z.array(MonitorThresholdSpec, { error: 'alert_thresholds must be a list' }).nullish().transform((v) => v ?? []),
}).superRefine(checkKindRules);
export type MonitorSpec = z.infer<typeof MonitorSpec>;

/** The file: `monitors:` and a list (each item is checked with MonitorSpec on its own, to name it in errors). */
export const MonitorsFile = z.strictObject({ monitors: z.array(z.unknown(), { error: 'monitors must be a list' }).nullish().transform((v) => v ?? []) });
