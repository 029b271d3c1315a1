import { Router } from 'express';
import { ApiKeyCreateBody } from '@upfleet/proto/schemas';
import type { ApiKeyService } from '../../services/api-keys';
import type { TokenService } from '../../services/tokens';
import { parseId, parseInput } from '../../services/validation';
import { authOf, requireUser } from '../middleware/auth';

/** Managing keys is an account action: a signed-in session only (a key is refused with 403). */
export function apiKeyRoutes(apiKeys: ApiKeyService, tokens: TokenService): Router {
  const r = Router();
  r.use('/users/api-keys', requireUser(tokens));
  r.post('/users/api-keys', (req, res) => {
    res.status(201).json({ success: true, data: apiKeys.create(authOf(req).userId, parseInput(ApiKeyCreateBody, req.body)) });
  });
  r.get('/users/api-keys', (req, res) => {
    res.json({ success: true, data: apiKeys.list(authOf(req).userId) });
  });
  r.delete('/users/api-keys/:id', (req, res) => {
    res.json({ success: true, data: apiKeys.revoke(authOf(req).userId, parseId(req.params.id, 'API key not found')) });
  });
  return r;
}
