// One change hub for endpoints and plans. The services that change them say so here —
// `changed(id)` (created, edited, switched on or off; null: any of them may have, as after a
// catalogue edit) and `removed(id)` (no longer monitored: switched off, deleted, or switched off by
// a downgrade) — and the parts that keep derived state subscribe: the assignment engine
// (assignments.ts `followChanges`) and alerting (alerting/index.ts `followChanges`).
// Listeners run synchronously, in subscription order, after the change is committed.

export interface ChangeListener {
  changed?(id: number | null): void;
  removed?(id: number): void;
}

export interface ChangeTopic {
  changed(id: number | null): void;
  removed(id: number): void;
  subscribe(listener: ChangeListener): () => void;
}

export interface ChangeHub {
  /** Endpoints by url_id. */
  endpoints: ChangeTopic;
  /** Plans (packages) by package_id: a plan edited, or a user moved to it; null for the catalogue as a whole (plans, regions). */
  plans: ChangeTopic;
}

function createTopic(): ChangeTopic {
  const listeners: ChangeListener[] = [];
  return {
    changed: (id) => {
      for (const l of listeners) l.changed?.(id);
    },
    removed: (id) => {
      for (const l of listeners) l.removed?.(id);
    },
    subscribe(listener) {
      listeners.push(listener);
      return () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
  };
}

export function createChangeHub(): ChangeHub {
  return { endpoints: createTopic(), plans: createTopic() };
}
