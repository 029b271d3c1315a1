import type { Router } from 'express';
import { ApiKeyCreateBody } from '@upfleet/proto/schemas';
import type { ApiKeyService } from '../../services/api-keys';
import { parseId, parseInput } from '../../services/validation';
import { authOf, type SignIn } from '../middleware/auth';
import { mount, route, strictRouter } from '../route-table';

/**
 * Managing keys is an account action: a signed-in session only (a key is refused with 403). A key
 * belongs to the request's workspace and acts with its maker's role there (admins make and revoke).
 */
export function apiKeyRoutes(apiKeys: ApiKeyService, signIn: SignIn): Router {
  const r = strictRouter();
  r.use('/users/api-keys', signIn.user, signIn.inWorkspace);
  return mount(r, [
    route('post', '/users/api-keys', { role: 'admin', action: 'api_key.create' }, async (req, res) => {
      const a = authOf(req);
      res.status(201).json({ success: true, data: await apiKeys.create(a.userId, parseInput(ApiKeyCreateBody, req.body), a.memberId) });
    }),
    route('get', '/users/api-keys', 'viewer', async (req, res) => {
      res.json({ success: true, data: await apiKeys.list(authOf(req).userId) });
    }),
    route('delete', '/users/api-keys/:id', { role: 'admin', action: 'api_key.delete' }, async (req, res) => {
      res.json({ success: true, data: await apiKeys.revoke(authOf(req).userId, parseId(req.params.id, 'API key not found')) });
    }),
  ]);
}
