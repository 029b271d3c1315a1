// Alert methods: the channels incidents are sent to, their webhook signing secret (admins: it signs
// what receivers trust), a test send and the delivery log.
import type { Request } from 'express';
import { AlertMethodCreateBody, AlertMethodUpdateBody, AlertSettingsBody } from '@upfleet/proto/schemas';
import type { Alerting } from '../../alerting';
import type { AlertService } from '../../alerting/settings';
import { AppError } from '../../errors';
import { parseId, parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

/** The alerting runtime, or 503 when the control plane runs without a results store. */
export function alertingOf(alerting: Alerting | null): () => Alerting {
  return () => {
    if (!alerting) throw new AppError('unavailable', 'Alerting is not running on this server');
    return alerting;
  };
}

export function alertMethodRoutes(deps: { alerts: AlertService; alerting: Alerting | null }): RouteDecl[] {
  const { alerts } = deps;
  const alerting = alertingOf(deps.alerting);
  const uid = (req: Request) => authOf(req).userId;
  const methodId = (raw: unknown) => parseId(raw, 'Alert method not found');
  return [
    // The workspace's alerting settings (a storm's group threshold).
    route('get', '/users/alert-settings', 'viewer', (req, res) => {
      res.json({ success: true, data: alerts.settings(uid(req)) });
    }),
    route('put', '/users/alert-settings', { role: 'admin', action: 'alert_settings.update' }, (req, res) => {
      res.json({ success: true, data: alerts.saveSettings(uid(req), parseInput(AlertSettingsBody, req.body)) });
    }),
    route('get', '/users/alert-methods', 'viewer', (req, res) => {
      res.json({ success: true, data: alerts.listMethods(uid(req)) });
    }),
    route('post', '/users/alert-methods', { role: 'admin', action: 'alert_method.create' }, (req, res) => {
      res.status(201).json({ success: true, data: alerts.createMethod(uid(req), parseInput(AlertMethodCreateBody, req.body)) });
    }),
    route('put', '/users/alert-methods/:id', { role: 'admin', action: 'alert_method.update' }, (req, res) => {
      res.json({ success: true, data: alerts.updateMethod(uid(req), methodId(req.params.id), parseInput(AlertMethodUpdateBody, req.body)) });
    }),
    route('delete', '/users/alert-methods/:id', { role: 'admin', action: 'alert_method.delete' }, (req, res) => {
      res.json({ success: true, data: alerts.deleteMethod(uid(req), methodId(req.params.id)) });
    }),
    route('get', '/users/alert-methods/:id/signing-secret', 'admin', (req, res) => {
      res.json({ success: true, data: alerts.signingSecret(uid(req), methodId(req.params.id)) });
    }),
    route('post', '/users/alert-methods/:id/test', { role: 'admin', action: 'alert_method.test' }, async (req, res) => {
      alerting();
      await alerts.admitTestSend(uid(req), methodId(req.params.id), authOf(req).memberId ?? uid(req));
      res.json({ success: true, data: await alerting().sendTest(uid(req), methodId(req.params.id)) });
    }),
    route('get', '/users/alert-methods/:id/deliveries', 'viewer', (req, res) => {
      res.json({ success: true, data: alerting().listDeliveries(uid(req), methodId(req.params.id)) });
    }),
  ];
}
