// Escalation policies as the owner edits them: plan-gated (advanced_alerts), steps naming only the
// workspace's own alert methods. Running them is alerting/escalation.ts.
import type { Package } from '@upfleet/proto/rest';
import type { EscalationPolicy } from '@upfleet/proto/rest';
import { planViolations } from '@upfleet/proto/plan';
import type { EscalationPolicyBody } from '@upfleet/proto/schemas';
import { badRequest, notFound, planRefused } from '../errors';
import type { EscalationPoliciesRepo, EscalationPolicyRow, EscalationPolicyWrite } from './escalation-policies-repo';

const toPolicy = (r: EscalationPolicyRow): EscalationPolicy => ({
  escalation_policy_id: r.escalation_policy_id, name: r.name, steps: r.steps, repeat: r.repeat,
  repeat_every_minutes: r.repeat_every_minutes, created_at: new Date(r.created_at).toISOString(),
});

export function createEscalationPolicyService(deps: { repo: EscalationPoliciesRepo; planOf(userId: number): Package | Promise<Package>; now?: () => number }) {
  const now = deps.now ?? Date.now;

  async function admit(userId: number, body: EscalationPolicyBody): Promise<EscalationPolicyWrite> {
    const refused = planViolations(await deps.planOf(userId), { escalation: true })[0];
    if (refused) throw planRefused(refused);
    const ids = [...new Set(body.steps.flatMap((s) => s.alert_method_ids))];
    const own = await deps.repo.ownMethodIds(userId, ids);
    const foreign = ids.find((id) => !own.has(id));
    if (foreign !== undefined) throw badRequest(`Alert method ${foreign} is not an alert method of this workspace`);
    return {
      name: body.name, repeat: body.repeat, repeat_every_minutes: body.repeat_every_minutes ?? 0,
      steps: body.steps.map((s) => ({ wait_minutes: s.wait_minutes, alert_method_ids: s.alert_method_ids })),
    };
  }

  async function get(userId: number, id: number): Promise<EscalationPolicy> {
    const r = await deps.repo.get(userId, id);
    if (!r) throw notFound('Escalation policy not found');
    return toPolicy(r);
  }

  return {
    list: async (userId: number): Promise<EscalationPolicy[]> => (await deps.repo.list(userId)).map(toPolicy),
    get,
    async create(userId: number, body: EscalationPolicyBody): Promise<EscalationPolicy> {
      const id = await deps.repo.insert(userId, await admit(userId, body), now());
      return get(userId, id);
    },
    async update(userId: number, id: number, body: EscalationPolicyBody): Promise<EscalationPolicy> {
      await get(userId, id);
      if (!(await deps.repo.update(userId, id, await admit(userId, body)))) throw notFound('Escalation policy not found');
      return get(userId, id);
    },
    async remove(userId: number, id: number): Promise<{ escalation_policy_id: number }> {
      if (!(await deps.repo.delete(userId, id))) throw notFound('Escalation policy not found');
      return { escalation_policy_id: id };
    },
    /** Whether the workspace has this policy (an endpoint naming it). */
    exists: async (userId: number, id: number): Promise<boolean> => (await deps.repo.get(userId, id)) !== undefined,
  };
}
export type EscalationPolicyService = ReturnType<typeof createEscalationPolicyService>;
