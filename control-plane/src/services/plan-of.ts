import type { Package } from '@upfleet/proto/rest';
import { notFound } from '../errors';
import type { CatalogRepo } from '../store/catalog-repo';
import type { UsersRepo } from '../store/users-repo';

/** A user's plan (Free when their package is gone). Built from the repos alone, so every feature can
 *  have it before the endpoint service exists. One query per call: callers on a per-check path keep
 *  their own copy (the plans' change hub says when it is stale). */
export function planLookup(users: Pick<UsersRepo, 'byId'>, catalog: Pick<CatalogRepo, 'packageById' | 'freePackage'>): (userId: number) => Promise<Package> {
  return async (userId) => {
    const user = await users.byId(userId);
    if (!user) throw notFound('User not found');
    return catalog.packageById(user.package_id) ?? catalog.freePackage();
  };
}
