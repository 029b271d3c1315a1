// Workspaces: members, roles and invitations.
import type { BillingService } from '../services/billing';
import type { EventHub } from '../services/events';
import { createWorkspaceService } from '../services/workspaces';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';
import { workspaceRoutes } from '../http/routes/workspaces';

export function createWorkspacesFeature(base: Foundation, deps: { events: EventHub; billing: BillingService }) {
  const workspaces = createWorkspaceService({
    workspaces: base.workspacesRepo, users: base.users, planOf: base.planOf, freePackageId: base.defaultPackageId,
    endpointChanges: base.changes.endpoints, mailer: base.accountMailer, publicUrl: base.publicUrl, logger: base.logger, now: base.now,
    emailVerified: base.emailVerified, maxWorkspacesPerUser: base.config.maxWorkspacesPerUser, billingEnabled: () => deps.billing.enabled(),
    // A member who leaves or is removed loses their open streams at once.
    onAccessEnded: (workspaceId, memberId) => deps.events.endStreams(workspaceId, memberId),
  });
  return {
    name: 'workspaces',
    services: { workspaces },
    routes: (signIn) => ({ account: [workspaceRoutes({ workspaces, repo: base.workspacesRepo, signIn, limiter: base.limiter })] }),
  } satisfies Feature<unknown>;
}
