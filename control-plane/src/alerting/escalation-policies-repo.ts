// Escalation policies of a workspace (Kysely: the same code on SQLite and Postgres). Every query
// names the workspace; a policy of another workspace is "not found".
import type { Kysely } from 'kysely';
import type { EscalationStep } from '@upfleet/proto/rest';
import type { Schema } from '../store/sql/schema';

export interface EscalationPolicyRow {
  escalation_policy_id: number;
  user_id: number;
  name: string;
  steps: EscalationStep[];
  repeat: number;
  repeat_every_minutes: number;
  created_at: number;
}

export interface EscalationPolicyWrite {
  name: string;
  steps: EscalationStep[];
  repeat: number;
  repeat_every_minutes: number;
}

type Stored = Omit<EscalationPolicyRow, 'steps'> & { steps: string };
const fromStored = (r: Stored): EscalationPolicyRow => ({
  ...r,
  escalation_policy_id: Number(r.escalation_policy_id), user_id: Number(r.user_id), repeat: Number(r.repeat),
  repeat_every_minutes: Number(r.repeat_every_minutes), created_at: Number(r.created_at),
  steps: JSON.parse(r.steps) as EscalationStep[],
});

export function createEscalationPoliciesRepo(db: Kysely<Schema>) {
  return {
    list: async (userId: number): Promise<EscalationPolicyRow[]> =>
      (await db.selectFrom('escalation_policies').selectAll().where('user_id', '=', userId).orderBy('escalation_policy_id').execute()).map(fromStored),
    get: async (userId: number, id: number): Promise<EscalationPolicyRow | undefined> => {
      const r = await db.selectFrom('escalation_policies').selectAll().where('user_id', '=', userId).where('escalation_policy_id', '=', id).executeTakeFirst();
      return r && fromStored(r);
    },
    insert: async (userId: number, p: EscalationPolicyWrite, now: number): Promise<number> => {
      const r = await db.insertInto('escalation_policies')
        .values({ user_id: userId, name: p.name, steps: JSON.stringify(p.steps), repeat: p.repeat, repeat_every_minutes: p.repeat_every_minutes, created_at: now })
        .returning('escalation_policy_id').executeTakeFirstOrThrow();
      return Number(r.escalation_policy_id);
    },
    update: async (userId: number, id: number, p: EscalationPolicyWrite): Promise<boolean> => {
      const r = await db.updateTable('escalation_policies')
        .set({ name: p.name, steps: JSON.stringify(p.steps), repeat: p.repeat, repeat_every_minutes: p.repeat_every_minutes })
        .where('user_id', '=', userId).where('escalation_policy_id', '=', id).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Deletes the policy; its endpoints go back to every enabled method at once (in the same transaction). */
    delete: (userId: number, id: number): Promise<boolean> =>
      db.transaction().execute(async (trx) => {
        const r = await trx.deleteFrom('escalation_policies').where('user_id', '=', userId).where('escalation_policy_id', '=', id).executeTakeFirst();
        if (Number(r.numDeletedRows) !== 1) return false;
        await trx.updateTable('endpoints').set({ escalation_policy_id: null }).where('user_id', '=', userId).where('escalation_policy_id', '=', id).execute();
        return true;
      }),
    /** Which of these alert method ids belong to the workspace. */
    ownMethodIds: async (userId: number, ids: number[]): Promise<Set<number>> => {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('alert_methods').select('alert_method_id').where('user_id', '=', userId).where('alert_method_id', 'in', ids).execute();
      return new Set(rows.map((r) => Number(r.alert_method_id)));
    },
  };
}
export type EscalationPoliciesRepo = ReturnType<typeof createEscalationPoliciesRepo>;
