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

export type CheckKind = 'CHECK_KIND_UNSPECIFIED' | 'CHECK_KIND_HTTP' | 'CHECK_KIND_TLS' | 'CHECK_KIND_PING' | 'CHECK_KIND_TCP' | 'CHECK_KIND_DNS';
export interface HttpRequestSpec { method: string; headers: Array<{ name: string; value: string }>; body: string; follow_redirects: boolean }
export interface AssertionSpec { source: string; property: string; comparison: string; target: string }

export interface RegisterRequest { bootstrap_token: string; region: string; hostname: string; version: string }
export interface RegisterResponse {
  agent_id: string; agent_secret: string; region: string; lease_seconds: number; heartbeat_interval_seconds: number;
}
export interface HeartbeatRequest {
  checks_owned: number; checks_per_minute: number; outbox_depth: number; scheduling_lag_ms_p99: number; outbox_dropped: number;
}
export interface HeartbeatResponse { lease_seconds: number }
export interface WatchAssignmentsRequest { known_version: number }
export interface Assignment {
  check_id: string; endpoint_id: number; kind: CheckKind; url: string; interval_seconds: number;
  timeout_ms: number; region: string; retention_days: number;
  /** the control plane's policy: private targets refused for this check (stricter of both sides wins) */
  private_targets_denied?: boolean;
  /** http: the request to make (absent or null: a GET following redirects) */
  request?: HttpRequestSpec | null;
  assertions?: AssertionSpec[];
  /** tcp: host:port; dns: the name */
  target?: string;
  record_type?: string;
  /** dns: ip or ip:port; empty: the system's resolver */
  resolver?: string;
}
export interface AssignmentUpdate {
  version: number;
  snapshot?: { assignments: Assignment[] } | null;
  delta?: { upserts: Assignment[]; removed_check_ids: string[] } | null;
  update?: 'snapshot' | 'delta';
}
export interface CheckResult {
  check_id: string; endpoint_id: number; kind: CheckKind; region: string; ts_ms: number; ok: boolean;
  phase: string; error: string; status_code: number; dns_ms: number; connect_ms: number; tls_ms: number;
  ttfb_ms: number; total_ms: number; cert_days_left: number; cert_not_after_ms: number; cert_issuer: string;
  cert_subject: string; ping_method: string; redirects: number; retention_days: number; result_id: string;
}
export interface ResultBatch { batch_id: string; results: CheckResult[] }
export interface BatchAck { batch_id: string; ok: boolean; error: string }

export interface AgentServiceClient extends grpc.Client {
  Register(req: RegisterRequest, cb: grpc.requestCallback<RegisterResponse>): grpc.ClientUnaryCall;
  Register(req: RegisterRequest, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: grpc.requestCallback<RegisterResponse>): grpc.ClientUnaryCall;
  Heartbeat(req: HeartbeatRequest, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: grpc.requestCallback<HeartbeatResponse>): grpc.ClientUnaryCall;
  WatchAssignments(req: WatchAssignmentsRequest, md: grpc.Metadata, opts?: Partial<grpc.CallOptions>): grpc.ClientReadableStream<AssignmentUpdate>;
  ReportResults(md: grpc.Metadata, opts?: Partial<grpc.CallOptions>): grpc.ClientDuplexStream<ResultBatch, BatchAck>;
}

export interface AgentServiceHandlers extends grpc.UntypedServiceImplementation {
  Register: grpc.handleUnaryCall<RegisterRequest, RegisterResponse>;
  Heartbeat: grpc.handleUnaryCall<HeartbeatRequest, HeartbeatResponse>;
  WatchAssignments: grpc.handleServerStreamingCall<WatchAssignmentsRequest, AssignmentUpdate>;
  ReportResults: grpc.handleBidiStreamingCall<ResultBatch, BatchAck>;
}

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
