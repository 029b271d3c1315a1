import type { Router } from 'express';
import { ApiKeyCreateBody } from '@upfleet/proto/schemas';
import type { ApiKeyService } from '../../services/api-keys';
import type { TokenService } from '../../services/tokens';
import { parseId, parseInput } from '../../services/validation';
import { authOf, inWorkspace, requireUser } from '../middleware/auth';
import { mount, route, strictRouter } from '../route-table';
import type { WorkspaceService } from '../../services/workspaces';

/**
 * Managing keys is an account action: a signed-in session only (a key is refused with 403). A key
 * belongs to the request's workspace and acts with its maker's role there (admins make and revoke).
 */
export function apiKeyRoutes(apiKeys: ApiKeyService, tokens: TokenService, workspaces: WorkspaceService): Router {
  const r = strictRouter();
  r.use('/users/api-keys', requireUser(tokens), inWorkspace(workspaces));
  return mount(r, [
    route('post', '/users/api-keys', { role: 'admin', action: 'api_key.create' }, (req, res) => {
      const a = authOf(req);
      res.status(201).json({ success: true, data: apiKeys.create(a.userId, parseInput(ApiKeyCreateBody, req.body), a.memberId) });
    }),
    route('get', '/users/api-keys', 'viewer', (req, res) => {
      res.json({ success: true, data: apiKeys.list(authOf(req).userId) });
    }),
    route('delete', '/users/api-keys/:id', { role: 'admin', action: 'api_key.delete' }, (req, res) => {
      res.json({ success: true, data: apiKeys.revoke(authOf(req).userId, parseId(req.params.id, 'API key not found')) });
    }),
  ]);
}
