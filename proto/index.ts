// Loads the agent protocol with @grpc/proto-loader and gives both sides one set of typed shapes.
// Agent and control plane meet only here.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const PROTO_PATH = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'upfleet/agent/v1/agent_service.proto',
);

/** keepCase: fields stay snake_case as in the .proto; longs as numbers; enums as their names. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

// The message types are generated from the .proto (proto/generated/, `npm run gen:proto`): the
// `__Output` shapes are what the loader gives with LOADER_OPTIONS (every field present, longs as
// numbers, enums as names), and what both sides build and send.
export type { CheckKind__Output as CheckKind } from './generated/upfleet/agent/v1/CheckKind';
export type { RegisterRequest__Output as RegisterRequest } from './generated/upfleet/agent/v1/RegisterRequest';
export type { RegisterResponse__Output as RegisterResponse } from './generated/upfleet/agent/v1/RegisterResponse';
export type { HeartbeatRequest__Output as HeartbeatRequest } from './generated/upfleet/agent/v1/HeartbeatRequest';
export type { HeartbeatResponse__Output as HeartbeatResponse } from './generated/upfleet/agent/v1/HeartbeatResponse';
export type { WatchAssignmentsRequest__Output as WatchAssignmentsRequest } from './generated/upfleet/agent/v1/WatchAssignmentsRequest';
import type { Assignment__Output } from './generated/upfleet/agent/v1/Assignment';
/** Field 9 stays optional: assignments saved by an agent before it existed lack it (absent = not denied). */
export type Assignment = Omit<Assignment__Output, 'private_targets_denied'> & { private_targets_denied?: boolean };
import type { AssignmentUpdate__Output } from './generated/upfleet/agent/v1/AssignmentUpdate';
/** A snapshot or delta of `Assignment`s (with field 9 optional, as above). */
export type AssignmentUpdate = Omit<AssignmentUpdate__Output, 'snapshot' | 'delta'> & {
  snapshot?: { assignments: Assignment[] } | null;
  delta?: { upserts: Assignment[]; removed_check_ids: string[] } | null;
};
export type { CheckResult__Output as CheckResult } from './generated/upfleet/agent/v1/CheckResult';
export type { ResultBatch__Output as ResultBatch } from './generated/upfleet/agent/v1/ResultBatch';
export type { BatchAck__Output as BatchAck } from './generated/upfleet/agent/v1/BatchAck';

// Client and handler types are generated too: a handler receives `__Output` shapes and may send
// the permissive ones (fields left out are defaults on the wire).
export type { AgentServiceClient, AgentServiceHandlers } from './generated/upfleet/agent/v1/AgentService';
import type { AgentServiceClient } from './generated/upfleet/agent/v1/AgentService';

type AgentServiceCtor = grpc.ServiceClientConstructor & {
  new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions): AgentServiceClient;
};

let cached: AgentServiceCtor | undefined;

/** The AgentService constructor and service definition, loaded once per process. */
export function loadAgentService(): AgentServiceCtor {
  if (cached) return cached;
  const def = protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    upfleet: { agent: { v1: { AgentService: AgentServiceCtor } } };
  };
  cached = pkg.upfleet.agent.v1.AgentService;
  return cached;
}

export { grpc };
