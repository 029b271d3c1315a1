// Invitations end to end with the mail at a local SMTP server: the link is mailed, works
// once for 7 days, only for a signed-in person whose confirmed address is the invited one, and the
// plan's max_members counts members and pending invitations.
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startSmtpReceiver, type SmtpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
  h = await startHarness({ SMTP_URL: smtp.url, SMTP_FROM: 'Upfleet <no-reply@upfleet.test>', PUBLIC_URL: 'https://app.upfleet.test' });
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The newest link matching `re` mailed to `to` (waits for it). */
async function mailedLink(to: string, re: RegExp): Promise<{ link: string; subject: string }> {
  const start = Date.now();
  for (;;) {
    const mail = smtp.messages.filter((m) => m.to.includes(to)).map((m) => decoded(m.raw)).reverse().find((raw) => re.test(raw));
    if (mail) return { link: re.exec(mail)![1], subject: /^Subject: (.*)$/m.exec(mail)?.[1] ?? '' };
    if (Date.now() - start > 10_000) throw new Error(`no mail to ${to}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const INVITE_RE = /https:\/\/app\.upfleet\.test\/invitations\/([A-Za-z0-9_-]+)/;
const VERIFY_RE = /https:\/\/app\.upfleet\.test(\/api\/auth\/verify-email\?token=[A-Za-z0-9_-]+)/;

async function signupVerified(name: string) {
  const s = await h.signup(name);
  const { link } = await mailedLink(s.user.email, VERIFY_RE);
  expect((await fetch(`${h.cp.url}${link}`, { redirect: 'manual' })).status).toBeLessThan(400);
  return s;
}

async function setWorkspacePlan(ws: number, plan: string) {
  const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
  await h.setPackage(list.find((w) => w.id === ws)!.account_email, plan);
}

describe('invitations', () => {
  it('mails a one-use link; the invited address accepts it once (after confirming it); others cannot', async () => {
    const owner = await signupVerified(`own${process.pid}`);
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Ops team' }, owner.token)).body.data.id as number;
    // Free: one member, so an invitation is refused in the style of the endpoint limit
    const free = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'dana@example.com', role: 'editor' }, owner.token);
    expect(free.status).toBe(403);
    expect(free.body).toEqual({ success: false, error: MESSAGES.tooManyMembers(1, 'Free') });
    await setWorkspacePlan(ws, 'Starter');

    const bobEmail = `bob${process.pid}@example.com`;
    const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: bobEmail, role: 'editor' }, owner.token);
    expect(inv.status).toBe(201);
    expect(inv.body.data).toMatchObject({ email: bobEmail, role: 'editor', emailed: true });
    expect(inv.body.data.link).toBeUndefined(); // mailed, never shown to the inviter
    expect(new Date(inv.body.data.expires_at).getTime() - Date.now()).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
    const { link: token, subject } = await mailedLink(bobEmail, INVITE_RE);
    expect(subject).toContain('Ops team');
    expect((await h.call('GET', `/api/workspaces/${ws}/invitations`, undefined, owner.token)).body.data).toEqual([
      expect.objectContaining({ email: bobEmail, role: 'editor' }),
    ]);

    // someone else, signed in, cannot use it
    const mallory = await signupVerified(`mal${process.pid}`);
    const stolen = await h.call('POST', `/api/invitations/${token}/accept`, undefined, mallory.token);
    expect(stolen.status).toBe(403);
    expect((await h.call('GET', `/api/workspaces/${ws}`, undefined, mallory.token)).status).toBe(404);
    // the join page reads the invitation before anyone signs in: workspace, inviter, role
    const preview = await h.call('GET', `/api/public/invitations/${token}`);
    expect(preview.body).toEqual({ success: true, data: { workspace_name: 'Ops team', inviter: `own${process.pid}`, role: 'editor', email: bobEmail, expires_at: inv.body.data.expires_at } });
    expect((await h.call('GET', '/api/public/invitations/not-a-real-token-at-all-xx')).status).toBe(404);
    // bob signs up from the link and joins at once: the link came to his address, so it is confirmed
    const bob = await h.signup(`bob${process.pid}`);
    expect((await h.call('GET', '/api/users/profile', undefined, bob.token)).body.data.email_verified).toBe(false);
    const ok = await h.call('POST', `/api/invitations/${token}/accept`, undefined, bob.token);
    expect(ok.status).toBe(200);
    expect((await h.call('GET', '/api/users/profile', undefined, bob.token)).body.data.email_verified).toBe(true);
    expect((await h.call('GET', `/api/public/invitations/${token}`)).status).toBe(404); // used
    expect(ok.body.data).toMatchObject({ id: ws, name: 'Ops team', role: 'editor' });
    expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, bob.token)).status).toBe(404); // once
    expect((await h.call('POST', '/api/invitations/not-a-real-token-at-all-xx/accept', undefined, bob.token)).status).toBe(404);
    expect((await h.call('GET', `/api/workspaces/${ws}/invitations`, undefined, owner.token)).body.data).toEqual([]);
    expect((await h.call('GET', '/api/workspaces', undefined, bob.token)).body.data.map((w: { name: string; role: string }) => [w.name, w.role])).toEqual([
      ['Personal', 'owner'], ['Ops team', 'editor'],
    ]);
    expect((await h.call('POST', '/api/users/endpoints', { name: 'bob site', url: 'https://example.com/bob', regions: ['EU-Germany'], response_code: true }, bob.token, { 'x-workspace-id': String(ws) })).status).toBe(201);

    // Starter: 3 members counting pending invitations; a revoked one frees its place
    expect((await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: bobEmail, role: 'viewer' }, owner.token)).status).toBe(409);
    const carol = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'carol@example.com', role: 'viewer' }, owner.token);
    expect(carol.status).toBe(201);
    const dave = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'dave@example.com', role: 'viewer' }, owner.token);
    expect(dave.body).toEqual({ success: false, error: MESSAGES.tooManyMembers(3, 'Starter') });
    expect((await h.call('DELETE', `/api/workspaces/${ws}/invitations/${carol.body.data.id}`, undefined, owner.token)).status).toBe(200);
    expect((await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'dave@example.com', role: 'viewer' }, owner.token)).status).toBe(201);
  });

  it('a link older than 7 days no longer works', async () => {
    const owner = await signupVerified(`own2${process.pid}`);
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Late' }, owner.token)).body.data.id as number;
    await setWorkspacePlan(ws, 'Pro');
    const email = `late${process.pid}@example.com`;
    await h.call('POST', `/api/workspaces/${ws}/invitations`, { email, role: 'viewer' }, owner.token);
    const { link: token } = await mailedLink(email, INVITE_RE);
    const late = await signupVerified(`late${process.pid}`);
    // eight days pass for the invitation
    const db = new Database(path.join(h.dataDir, 'upfleet.db'));
    db.prepare('UPDATE workspace_invitations SET created_at = created_at - ?, expires_at = expires_at - ? WHERE workspace_id = ?').run(8 * 86400_000, 8 * 86400_000, ws);
    db.close();
    const r = await h.call('POST', `/api/invitations/${token}/accept`, undefined, late.token);
    expect(r.body).toEqual({ success: false, error: 'This invitation is invalid, used or expired' });
    expect((await h.call('GET', `/api/workspaces/${ws}`, undefined, late.token)).status).toBe(404);
  });

  it('invites one plain mailbox only: group syntax, display names and lists get 400, and nothing is stored or mailed', async () => {
    const owner = await signupVerified(`own3${process.pid}`);
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Strict' }, owner.token)).body.data.id as number;
    await setWorkspacePlan(ws, 'Pro');
    const mailsBefore = smtp.messages.length;
    for (const email of ['a:victim@example.com;', '"Eve" <victim@example.com>', 'victim@example.com, other@example.com', 'victim@example.com (note)']) {
      const r = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email, role: 'viewer' }, owner.token);
      expect(r.status, email).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'Please enter a valid email address' });
    }
    expect((await h.call('GET', `/api/workspaces/${ws}/invitations`, undefined, owner.token)).body.data).toEqual([]);
    const ok = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'Victim@Example.com', role: 'viewer' }, owner.token);
    expect(ok.status).toBe(201);
    expect(ok.body.data.email).toBe('victim@example.com');
    expect(smtp.messages.length).toBe(mailsBefore + 1);
  });
});
