// Escalation policies: who is notified, in which order and how often, until someone acknowledges.
import type { Request } from 'express';
import { EscalationPolicyBody } from '@upfleet/proto/schemas';
import type { EscalationPolicyService } from '../../alerting/escalation-policies';
import { parseId, parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function escalationPolicyRoutes(deps: { escalationPolicies: EscalationPolicyService }): RouteDecl[] {
  const policies = deps.escalationPolicies;
  const uid = (req: Request) => authOf(req).userId;
  const policyId = (raw: unknown) => parseId(raw, 'Escalation policy not found');
  return [
    route('get', '/users/escalation-policies', 'viewer', async (req, res) => {
      res.json({ success: true, data: await policies.list(uid(req)) });
    }),
    route('get', '/users/escalation-policies/:id', 'viewer', async (req, res) => {
      res.json({ success: true, data: await policies.get(uid(req), policyId(req.params.id)) });
    }),
    route('post', '/users/escalation-policies', { role: 'admin', action: 'escalation_policy.create' }, async (req, res) => {
      res.status(201).json({ success: true, data: await policies.create(uid(req), parseInput(EscalationPolicyBody, req.body)) });
    }),
    route('put', '/users/escalation-policies/:id', { role: 'admin', action: 'escalation_policy.update' }, async (req, res) => {
      const id = policyId(req.params.id);
      res.json({ success: true, data: await policies.update(uid(req), id, parseInput(EscalationPolicyBody, req.body)) });
    }),
    route('delete', '/users/escalation-policies/:id', { role: 'admin', action: 'escalation_policy.delete' }, async (req, res) => {
      res.json({ success: true, data: await policies.remove(uid(req), policyId(req.params.id)) });
    }),
  ];
}
