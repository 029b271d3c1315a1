// Escalation policies: ordered steps of alert methods with waits between them, and reminders.
import { z } from 'zod';
import { ESCALATION_LIMITS } from '../rest';
import { requiredText } from './common';

const WAIT_ERROR = `wait_minutes must be a whole number of minutes from 0 to ${ESCALATION_LIMITS.maxWaitMinutes}`;
const REPEAT_ERROR = `repeat must be a whole number from 0 to ${ESCALATION_LIMITS.maxRepeat}`;
const EVERY_ERROR = `repeat_every_minutes must be a whole number of minutes from 1 to ${ESCALATION_LIMITS.maxWaitMinutes}`;
const METHOD_ERROR = 'alert_method_ids must list alert method ids';

const EscalationStepSpec = z.object(
  {
    wait_minutes: z.number({ error: WAIT_ERROR }).int(WAIT_ERROR).min(0, WAIT_ERROR).max(ESCALATION_LIMITS.maxWaitMinutes, WAIT_ERROR),
    alert_method_ids: z
      .array(z.number({ error: METHOD_ERROR }).int(METHOD_ERROR).positive(METHOD_ERROR), { error: METHOD_ERROR })
      .min(1, 'Each step needs at least one alert method')
      .max(20, 'A step may notify at most 20 alert methods')
      .refine((ids) => new Set(ids).size === ids.length, 'A step lists each alert method once'),
  },
  { error: 'Each step needs wait_minutes and alert_method_ids' },
);

/** POST and PUT /api/users/escalation-policies: the whole policy. */
export const EscalationPolicyBody = z
  .object({
    name: requiredText('Name', 100),
    steps: z
      .array(EscalationStepSpec, { error: 'steps must be a list' })
      .min(1, 'A policy needs at least one step')
      .max(ESCALATION_LIMITS.maxSteps, `A policy has at most ${ESCALATION_LIMITS.maxSteps} steps`),
    repeat: z.number({ error: REPEAT_ERROR }).int(REPEAT_ERROR).min(0, REPEAT_ERROR).max(ESCALATION_LIMITS.maxRepeat, REPEAT_ERROR).default(0),
    repeat_every_minutes: z.number({ error: EVERY_ERROR }).int(EVERY_ERROR).min(1, EVERY_ERROR).max(ESCALATION_LIMITS.maxWaitMinutes, EVERY_ERROR).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.repeat > 0 && b.repeat_every_minutes === undefined) {
      ctx.addIssue({ code: 'custom', message: 'repeat_every_minutes is required when repeat is above 0', path: ['repeat_every_minutes'] });
    }
  })
  .meta({ id: 'EscalationPolicyBody', description: 'POST /api/users/escalation-policies, PUT /api/users/escalation-policies/:id (the whole policy)' });
export type EscalationPolicyBody = z.infer<typeof EscalationPolicyBody>;
