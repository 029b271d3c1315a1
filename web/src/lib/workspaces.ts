// The workspace the app acts on: the switcher's choice is kept per browser and sent as
// X-Workspace-Id by the request helper; the member's role there decides what the pages offer.
import { useCallback, useEffect, useState } from 'react';
import { useAuth, useServices } from '../app-context';
import { WORKSPACE_STORAGE_KEY } from '../services';

export type WorkspaceRole = 'owner' | 'admin' | 'editor' | 'viewer';
export interface WorkspaceSummary { id: number; name: string; personal: boolean; role: WorkspaceRole; package_name: string }

const RANK: Record<WorkspaceRole, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };
/** Whether `role` may do what needs `needed` (the server's rule; the server decides in the end). */
export const roleAllows = (role: WorkspaceRole | null | undefined, needed: WorkspaceRole) => !!role && RANK[role] >= RANK[needed];

/** The pages' rule: offer an action unless the role is known and falls short (the server refuses anyway). */
export const mayOffer = (role: WorkspaceRole | null, needed: WorkspaceRole) => role === null || roleAllows(role, needed);

/** The window event that makes every useWorkspaces() read the list again. */
const WORKSPACES_CHANGED = 'upfleet:workspaces-changed';

/** The last list per request helper: a page mounted after the navbar knows the role at once. */
const lastList = new WeakMap<object, WorkspaceSummary[]>();

/** The workspace chosen just before the page reloads: a list read earlier may not hold it yet
 *  (one just created), and a re-render before the unload must not drop the choice. */
let switchingTo: string | null = null;

export function useWorkspaces() {
  const { api, storage } = useServices();
  const signedIn = useAuth((s) => s.status === 'authenticated' && !!s.user);
  const [list, setList] = useState<WorkspaceSummary[] | null>(() => lastList.get(api) ?? null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    void api.get<WorkspaceSummary[]>('/api/workspaces').then((res) => {
      if (res.success) lastList.set(api, res.data);
      if (live && res.success) setList(res.data);
    }).catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, signedIn, version]);
  // A change made on one page (a rename) reaches every user of the list (the navbar's switcher too).
  useEffect(() => {
    const again = () => setVersion((v) => v + 1);
    window.addEventListener(WORKSPACES_CHANGED, again);
    return () => window.removeEventListener(WORKSPACES_CHANGED, again);
  }, []);
  const stored = storage?.getItem(WORKSPACE_STORAGE_KEY) ?? null;
  const current = list ? list.find((w) => String(w.id) === stored) ?? list.find((w) => w.personal) ?? list[0] ?? null : null;
  // A workspace one has left (or that was deleted) falls back to the personal one.
  useEffect(() => {
    if (list && stored && stored !== switchingTo && !list.some((w) => String(w.id) === stored)) storage?.removeItem(WORKSPACE_STORAGE_KEY);
  }, [list, stored, storage]);
  const select = useCallback((id: number) => {
    switchingTo = String(id);
    storage?.setItem(WORKSPACE_STORAGE_KEY, switchingTo);
    window.location.reload(); // every page reloads its data for the chosen workspace
  }, [storage]);
  return { list, current, role: current?.role ?? null, select, reload: () => window.dispatchEvent(new Event(WORKSPACES_CHANGED)) };
}
