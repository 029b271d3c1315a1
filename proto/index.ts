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
import type { HttpRequest__Output } from './generated/upfleet/agent/v1/HttpRequest';
import type { Assertion__Output } from './generated/upfleet/agent/v1/Assertion';
export type HttpRequestSpec = HttpRequest__Output;
export type AssertionSpec = Assertion__Output;
/**
 * Field 9 stays optional: assignments saved by an agent before it existed lack it (absent = not
 * denied). So do fields 10-14 (request, assertions, target, record_type, resolver): an
 * http check without them is a GET judged by its status, as before.
 */
import type { BrowserStep__Output } from './generated/upfleet/agent/v1/BrowserStep';
export type BrowserStepSpec = BrowserStep__Output;
export type Assignment = Omit<Assignment__Output, 'private_targets_denied' | 'request' | 'assertions' | 'target' | 'record_type' | 'resolver' | 'default_resolvers' | 'steps'> & {
  private_targets_denied?: boolean;
  request?: HttpRequestSpec | null;
  assertions?: AssertionSpec[];
  /** tcp: host:port; dns: the name */
  target?: string;
  record_type?: string;
  /** dns: ip or ip:port; empty: default_resolvers, else the system's resolver */
  resolver?: string;
  /** dns with no resolver: the operator's DNS_RESOLVERS (sent when private targets are denied) */
  default_resolvers?: string[];
  /** browser: the steps after loading url */
  steps?: BrowserStepSpec[];
};
import type { AssignmentUpdate__Output } from './generated/upfleet/agent/v1/AssignmentUpdate';
/** A snapshot or delta of `Assignment`s (with field 9 optional, as above). */
export type AssignmentUpdate = Omit<AssignmentUpdate__Output, 'snapshot' | 'delta' | 'run_now'> & {
  /** `more`: a chunk, with more of the same snapshot to follow (only to agents that accept chunks). */
  snapshot?: { assignments: Assignment[]; more?: boolean } | null;
  delta?: { upserts: Assignment[]; removed_check_ids: string[] } | null;
  /** "Run now": one run outside the schedule (only to agents that set accepts_run_now) */
  run_now?: RunNowRequest | null;
};
/** A check to run once now, answered with ReportRunNow (never scheduled, saved or stored). */
export interface RunNowRequest { run_id: string; check: Assignment | null }
export type { RunNowReport__Output as RunNowReport } from './generated/upfleet/agent/v1/RunNowReport';
export type { RunNowAck__Output as RunNowAck } from './generated/upfleet/agent/v1/RunNowAck';
/** The browser fields (23-31) stay optional: only browser results carry them, and outboxes written before them lack them. */
type BrowserResultField = 'failed_step' | 'failed_action' | 'dom_content_loaded_ms' | 'load_ms' | 'lcp_ms' | 'step_ms' | 'console_errors' | 'failed_requests' | 'screenshots';
export type CheckResult = Omit<CheckResult__Output, BrowserResultField> & Partial<Pick<CheckResult__Output, BrowserResultField>>;
export type { Screenshot__Output as Screenshot } from './generated/upfleet/agent/v1/Screenshot';
export type ResultBatch = Omit<ResultBatch__Output, 'results'> & { results: CheckResult[] };
/** The browser fields as a decoder gives them for any other result (proto3 defaults). */
export const NO_BROWSER_FIELDS: Readonly<Pick<CheckResult__Output, BrowserResultField>> = {
  failed_step: 0, failed_action: '', dom_content_loaded_ms: 0, load_ms: 0, lcp_ms: 0, step_ms: [], console_errors: [], failed_requests: [], screenshots: [],
};
import type { CheckResult__Output } from './generated/upfleet/agent/v1/CheckResult';
import type { ResultBatch__Output } from './generated/upfleet/agent/v1/ResultBatch';
export type { BatchAck__Output as BatchAck } from './generated/upfleet/agent/v1/BatchAck';

// Client and handler types are generated too: a handler receives `__Output` shapes and may send
// the permissive ones (fields left out are defaults on the wire).
export type { AgentServiceClient, AgentServiceHandlers } from './generated/upfleet/agent/v1/AgentService';
import type { AgentServiceClient } from './generated/upfleet/agent/v1/AgentService';

type AgentServiceCtor = grpc.ServiceClientConstructor & {
  new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions): AgentServiceClient;
};

let cached: AgentServiceCtor | undefined;
let reportMethod: grpc.MethodDefinition<unknown, unknown> | undefined;

/**
 * A ResultBatch already in wire form: the agent's outbox keeps each result encoded, so a batch is
 * sent as these bytes (the ReportResults serializer passes them through) with no re-encoding.
 */
export interface EncodedResultBatch { batch_id: string; encoded: Buffer }

/** The AgentService constructor and service definition, loaded once per process. */
export function loadAgentService(): AgentServiceCtor {
  if (cached) return cached;
  const def = protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS);
  const method = (def['upfleet.agent.v1.AgentService'] as unknown as Record<string, grpc.MethodDefinition<unknown, unknown>>).ReportResults;
  const serialize = method.requestSerialize;
  method.requestSerialize = (v: unknown) => {
    const encoded = (v as Partial<EncodedResultBatch> | null)?.encoded;
    return Buffer.isBuffer(encoded) ? encoded : serialize(v);
  };
  reportMethod = method;
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    upfleet: { agent: { v1: { AgentService: AgentServiceCtor } } };
  };
  cached = pkg.upfleet.agent.v1.AgentService;
  return cached;
}

function report(): grpc.MethodDefinition<unknown, unknown> {
  if (!reportMethod) loadAgentService();
  return reportMethod!;
}

/**
 * One result as it stands inside a ResultBatch on the wire (field 2: tag, length, message). A
 * batch's encoding is its id's (`encodeBatchId`) followed by such entries, in any number.
 */
export function encodeBatchEntry(r: CheckResult): Buffer {
  return report().requestSerialize({ results: [r] }); // no batch_id key: an empty one would still be written
}

/** ResultBatch field 1 (batch_id) on the wire. */
export function encodeBatchId(batchId: string): Buffer {
  const id = Buffer.from(batchId, 'utf8');
  const head: number[] = [0x0a];
  for (let n = id.length; ; n >>>= 7) {
    if (n < 0x80) {
      head.push(n);
      break;
    }
    head.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from(head), id]);
}

/** A batch's wire bytes read back (what the control plane would receive). */
export function decodeResultBatch(bytes: Buffer): ResultBatch {
  return report().requestDeserialize(bytes) as ResultBatch__Output;
}

export { grpc };
