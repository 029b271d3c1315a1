// The data routes of a workspace (`/api/users/*`, `/api/graphs/*`), declared by each feature: a
// session, or an API key acting as its owner (account routes such as /users/profile are matched
// before this router). Each acts on the request's workspace (X-Workspace-Id, or the personal one)
// within the caller's role there, which each route declares (route-table.ts).
import type { Router } from 'express';
import type { SignIn } from '../middleware/auth';
import { mount, strictRouter, type RouteDecl } from '../route-table';

export function workspaceDataRouter(routes: RouteDecl[], signIn: SignIn): Router {
  const r = strictRouter();
  const signedIn = [signIn.userOrKey, signIn.inWorkspace];
  // Any /users/* path signs in first: an unknown one answers 404 to a member, 401 to a stranger.
  r.use('/users', ...signedIn);
  mount(r, routes.filter((d) => d.path.startsWith('/users/')));
  mount(r, routes.filter((d) => !d.path.startsWith('/users/')), ...signedIn);
  return r;
}
