// The agent's lasting identity (from Register), kept in the agent db's kv table under `identity`.
import { kvAccess, type AgentDb } from './agent-db';

export interface AgentIdentity {
  agent_id: string;
  agent_secret: string;
  region: string;
  lease_seconds: number;
  heartbeat_interval_seconds: number;
}

export interface IdentityStore {
  get(this: void): AgentIdentity | undefined;
  save(this: void, identity: AgentIdentity): void;
}

export function createIdentityStore(db: AgentDb): IdentityStore {
  const kv = kvAccess(db);
  return {
    get() {
      const v = kv.get('identity');
      return v ? (JSON.parse(v) as AgentIdentity) : undefined;
    },
    save: (identity) => kv.set('identity', JSON.stringify(identity)),
  };
}
