// The workspace part of openapi.test.ts: calls each documented workspace operation once (success,
// and errors where they matter), through the test's `call`, which checks the answer against the document.
type Call = (method: string, docPath: string, url: string, body?: unknown, token?: string) => Promise<{ status: number; body: any }>;

/** `owner` and `member` are session tokens of two people (the owner's password is `ownerPassword`);
 *  `memberEmail` is the member's address; `setPlan` moves a workspace to a plan that can invite. */
export async function exerciseWorkspaces(call: Call, owner: string, ownerPassword: string, member: string, memberEmail: string, setPlan: (workspaceId: number) => Promise<void>): Promise<void> {
  const W = '/api/workspaces';
  const created = await call('POST', W, W, { name: 'API docs team' }, owner);
  const id = created.body.data.id as number;
  await call('POST', W, W, { name: '' }, owner); // 400
  await setPlan(id);
  await call('GET', W, W, undefined, owner);
  await call('GET', `${W}/{id}`, `${W}/${id}`, undefined, owner);
  await call('GET', `${W}/{id}`, `${W}/987654`, undefined, owner); // 404
  await call('PUT', `${W}/{id}`, `${W}/${id}`, { name: 'API docs' }, owner);
  const inv = await call('POST', `${W}/{id}/invitations`, `${W}/${id}/invitations`, { email: memberEmail, role: 'viewer' }, owner);
  await call('POST', `${W}/{id}/invitations`, `${W}/${id}/invitations`, { email: 'not-an-email', role: 'viewer' }, owner); // 400
  await call('GET', `${W}/{id}/invitations`, `${W}/${id}/invitations`, undefined, owner);
  const other = await call('POST', `${W}/{id}/invitations`, `${W}/${id}/invitations`, { email: 'someone-else@example.com', role: 'viewer' }, owner);
  await call('DELETE', `${W}/{id}/invitations/{inv_id}`, `${W}/${id}/invitations/${other.body.data.id}`, undefined, owner);
  const token = String(inv.body.data.link).split('/').pop()!;
  await call('POST', '/api/invitations/{token}/accept', `/api/invitations/${token}/accept`, undefined, member);
  await call('POST', '/api/invitations/{token}/accept', `/api/invitations/${token}/accept`, undefined, member); // 404: used
  const members = await call('GET', `${W}/{id}/members`, `${W}/${id}/members`, undefined, owner);
  const memberId = (members.body.data as Array<{ user_id: number; email: string }>).find((m) => m.email === memberEmail)!.user_id;
  await call('PUT', `${W}/{id}/members/{user_id}`, `${W}/${id}/members/${memberId}`, { role: 'editor' }, owner);
  await call('PUT', `${W}/{id}/members/{user_id}`, `${W}/${id}/members/${memberId}`, { role: 'admin' }, member); // 403: an editor
  await call('GET', `${W}/{id}/audit-log`, `${W}/${id}/audit-log?limit=10`, undefined, owner);
  await call('DELETE', `${W}/{id}/members/{user_id}`, `${W}/${id}/members/${memberId}`, undefined, owner);
  await call('DELETE', `${W}/{id}`, `${W}/${id}`, { password: 'wrong password' }, owner); // 400
  await call('DELETE', `${W}/{id}`, `${W}/${id}`, { password: ownerPassword }, owner);
}
