// API keys (`upk_…`) a user makes for the public API (plans with api_access).
import { z } from 'zod';
import { requiredText } from './common';

export const ApiKeyCreateBody = z
  .object({ name: requiredText('Name', 100) })
  .meta({ id: 'ApiKeyCreateBody', description: 'POST /api/users/api-keys (the key is shown once, in the answer)' });
export type ApiKeyCreateBody = z.infer<typeof ApiKeyCreateBody>;
