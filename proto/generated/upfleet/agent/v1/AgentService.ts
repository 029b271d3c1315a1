// Original file: proto/upfleet/agent/v1/agent_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AssignmentUpdate as _upfleet_agent_v1_AssignmentUpdate, AssignmentUpdate__Output as _upfleet_agent_v1_AssignmentUpdate__Output } from '../../../upfleet/agent/v1/AssignmentUpdate';
import type { BatchAck as _upfleet_agent_v1_BatchAck, BatchAck__Output as _upfleet_agent_v1_BatchAck__Output } from '../../../upfleet/agent/v1/BatchAck';
import type { HeartbeatRequest as _upfleet_agent_v1_HeartbeatRequest, HeartbeatRequest__Output as _upfleet_agent_v1_HeartbeatRequest__Output } from '../../../upfleet/agent/v1/HeartbeatRequest';
import type { HeartbeatResponse as _upfleet_agent_v1_HeartbeatResponse, HeartbeatResponse__Output as _upfleet_agent_v1_HeartbeatResponse__Output } from '../../../upfleet/agent/v1/HeartbeatResponse';
import type { RegisterRequest as _upfleet_agent_v1_RegisterRequest, RegisterRequest__Output as _upfleet_agent_v1_RegisterRequest__Output } from '../../../upfleet/agent/v1/RegisterRequest';
import type { RegisterResponse as _upfleet_agent_v1_RegisterResponse, RegisterResponse__Output as _upfleet_agent_v1_RegisterResponse__Output } from '../../../upfleet/agent/v1/RegisterResponse';
import type { ResultBatch as _upfleet_agent_v1_ResultBatch, ResultBatch__Output as _upfleet_agent_v1_ResultBatch__Output } from '../../../upfleet/agent/v1/ResultBatch';
import type { RunNowAck as _upfleet_agent_v1_RunNowAck, RunNowAck__Output as _upfleet_agent_v1_RunNowAck__Output } from '../../../upfleet/agent/v1/RunNowAck';
import type { RunNowReport as _upfleet_agent_v1_RunNowReport, RunNowReport__Output as _upfleet_agent_v1_RunNowReport__Output } from '../../../upfleet/agent/v1/RunNowReport';
import type { WatchAssignmentsRequest as _upfleet_agent_v1_WatchAssignmentsRequest, WatchAssignmentsRequest__Output as _upfleet_agent_v1_WatchAssignmentsRequest__Output } from '../../../upfleet/agent/v1/WatchAssignmentsRequest';

export interface AgentServiceClient extends grpc.Client {
  /**
   * Renews the agent's lease and reports its health; sent every heartbeat_interval_seconds.
   */
  Heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Renews the agent's lease and reports its health; sent every heartbeat_interval_seconds.
   */
  heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _upfleet_agent_v1_HeartbeatRequest, callback: grpc.requestCallback<_upfleet_agent_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Exchanges a bootstrap token (made by an admin with the CLI) for a lasting agent identity.
   */
  Register(argument: _upfleet_agent_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _upfleet_agent_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _upfleet_agent_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _upfleet_agent_v1_RegisterRequest, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Exchanges a bootstrap token (made by an admin with the CLI) for a lasting agent identity.
   */
  register(argument: _upfleet_agent_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _upfleet_agent_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _upfleet_agent_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _upfleet_agent_v1_RegisterRequest, callback: grpc.requestCallback<_upfleet_agent_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Bidirectional: result batches in, one ack per batch out, sent only after the batch is stored.
   */
  ReportResults(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_upfleet_agent_v1_ResultBatch, _upfleet_agent_v1_BatchAck__Output>;
  ReportResults(options?: grpc.CallOptions): grpc.ClientDuplexStream<_upfleet_agent_v1_ResultBatch, _upfleet_agent_v1_BatchAck__Output>;
  /**
   * Bidirectional: result batches in, one ack per batch out, sent only after the batch is stored.
   */
  reportResults(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_upfleet_agent_v1_ResultBatch, _upfleet_agent_v1_BatchAck__Output>;
  reportResults(options?: grpc.CallOptions): grpc.ClientDuplexStream<_upfleet_agent_v1_ResultBatch, _upfleet_agent_v1_BatchAck__Output>;
  
  /**
   * The result of a RunNowRequest (AssignmentUpdate.run_now), sent once when the run ends. A unary
   * call of its own, not a CheckResult in ReportResults: a Run-now result is answered to one waiting
   * HTTP request and never stored, so it must not pass through the outbox, ingest or alerting.
   */
  ReportRunNow(argument: _upfleet_agent_v1_RunNowReport, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  ReportRunNow(argument: _upfleet_agent_v1_RunNowReport, metadata: grpc.Metadata, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  ReportRunNow(argument: _upfleet_agent_v1_RunNowReport, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  ReportRunNow(argument: _upfleet_agent_v1_RunNowReport, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  /**
   * The result of a RunNowRequest (AssignmentUpdate.run_now), sent once when the run ends. A unary
   * call of its own, not a CheckResult in ReportResults: a Run-now result is answered to one waiting
   * HTTP request and never stored, so it must not pass through the outbox, ingest or alerting.
   */
  reportRunNow(argument: _upfleet_agent_v1_RunNowReport, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  reportRunNow(argument: _upfleet_agent_v1_RunNowReport, metadata: grpc.Metadata, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  reportRunNow(argument: _upfleet_agent_v1_RunNowReport, options: grpc.CallOptions, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  reportRunNow(argument: _upfleet_agent_v1_RunNowReport, callback: grpc.requestCallback<_upfleet_agent_v1_RunNowAck__Output>): grpc.ClientUnaryCall;
  
  /**
   * Server stream: one full snapshot (with a version), then deltas as endpoints or ownership change.
   */
  WatchAssignments(argument: _upfleet_agent_v1_WatchAssignmentsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_upfleet_agent_v1_AssignmentUpdate__Output>;
  WatchAssignments(argument: _upfleet_agent_v1_WatchAssignmentsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_upfleet_agent_v1_AssignmentUpdate__Output>;
  /**
   * Server stream: one full snapshot (with a version), then deltas as endpoints or ownership change.
   */
  watchAssignments(argument: _upfleet_agent_v1_WatchAssignmentsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_upfleet_agent_v1_AssignmentUpdate__Output>;
  watchAssignments(argument: _upfleet_agent_v1_WatchAssignmentsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_upfleet_agent_v1_AssignmentUpdate__Output>;
  
}

export interface AgentServiceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Renews the agent's lease and reports its health; sent every heartbeat_interval_seconds.
   */
  Heartbeat: grpc.handleUnaryCall<_upfleet_agent_v1_HeartbeatRequest__Output, _upfleet_agent_v1_HeartbeatResponse>;
  
  /**
   * Exchanges a bootstrap token (made by an admin with the CLI) for a lasting agent identity.
   */
  Register: grpc.handleUnaryCall<_upfleet_agent_v1_RegisterRequest__Output, _upfleet_agent_v1_RegisterResponse>;
  
  /**
   * Bidirectional: result batches in, one ack per batch out, sent only after the batch is stored.
   */
  ReportResults: grpc.handleBidiStreamingCall<_upfleet_agent_v1_ResultBatch__Output, _upfleet_agent_v1_BatchAck>;
  
  /**
   * The result of a RunNowRequest (AssignmentUpdate.run_now), sent once when the run ends. A unary
   * call of its own, not a CheckResult in ReportResults: a Run-now result is answered to one waiting
   * HTTP request and never stored, so it must not pass through the outbox, ingest or alerting.
   */
  ReportRunNow: grpc.handleUnaryCall<_upfleet_agent_v1_RunNowReport__Output, _upfleet_agent_v1_RunNowAck>;
  
  /**
   * Server stream: one full snapshot (with a version), then deltas as endpoints or ownership change.
   */
  WatchAssignments: grpc.handleServerStreamingCall<_upfleet_agent_v1_WatchAssignmentsRequest__Output, _upfleet_agent_v1_AssignmentUpdate>;
  
}

export interface AgentServiceDefinition extends grpc.ServiceDefinition {
  Heartbeat: MethodDefinition<_upfleet_agent_v1_HeartbeatRequest, _upfleet_agent_v1_HeartbeatResponse, _upfleet_agent_v1_HeartbeatRequest__Output, _upfleet_agent_v1_HeartbeatResponse__Output>
  Register: MethodDefinition<_upfleet_agent_v1_RegisterRequest, _upfleet_agent_v1_RegisterResponse, _upfleet_agent_v1_RegisterRequest__Output, _upfleet_agent_v1_RegisterResponse__Output>
  ReportResults: MethodDefinition<_upfleet_agent_v1_ResultBatch, _upfleet_agent_v1_BatchAck, _upfleet_agent_v1_ResultBatch__Output, _upfleet_agent_v1_BatchAck__Output>
  ReportRunNow: MethodDefinition<_upfleet_agent_v1_RunNowReport, _upfleet_agent_v1_RunNowAck, _upfleet_agent_v1_RunNowReport__Output, _upfleet_agent_v1_RunNowAck__Output>
  WatchAssignments: MethodDefinition<_upfleet_agent_v1_WatchAssignmentsRequest, _upfleet_agent_v1_AssignmentUpdate, _upfleet_agent_v1_WatchAssignmentsRequest__Output, _upfleet_agent_v1_AssignmentUpdate__Output>
}
