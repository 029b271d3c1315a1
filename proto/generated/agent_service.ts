import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AgentServiceClient as _upfleet_agent_v1_AgentServiceClient, AgentServiceDefinition as _upfleet_agent_v1_AgentServiceDefinition } from './upfleet/agent/v1/AgentService';
import type { Assertion as _upfleet_agent_v1_Assertion, Assertion__Output as _upfleet_agent_v1_Assertion__Output } from './upfleet/agent/v1/Assertion';
import type { Assignment as _upfleet_agent_v1_Assignment, Assignment__Output as _upfleet_agent_v1_Assignment__Output } from './upfleet/agent/v1/Assignment';
import type { AssignmentDelta as _upfleet_agent_v1_AssignmentDelta, AssignmentDelta__Output as _upfleet_agent_v1_AssignmentDelta__Output } from './upfleet/agent/v1/AssignmentDelta';
import type { AssignmentSnapshot as _upfleet_agent_v1_AssignmentSnapshot, AssignmentSnapshot__Output as _upfleet_agent_v1_AssignmentSnapshot__Output } from './upfleet/agent/v1/AssignmentSnapshot';
import type { AssignmentUpdate as _upfleet_agent_v1_AssignmentUpdate, AssignmentUpdate__Output as _upfleet_agent_v1_AssignmentUpdate__Output } from './upfleet/agent/v1/AssignmentUpdate';
import type { BatchAck as _upfleet_agent_v1_BatchAck, BatchAck__Output as _upfleet_agent_v1_BatchAck__Output } from './upfleet/agent/v1/BatchAck';
import type { BrowserStep as _upfleet_agent_v1_BrowserStep, BrowserStep__Output as _upfleet_agent_v1_BrowserStep__Output } from './upfleet/agent/v1/BrowserStep';
import type { CheckResult as _upfleet_agent_v1_CheckResult, CheckResult__Output as _upfleet_agent_v1_CheckResult__Output } from './upfleet/agent/v1/CheckResult';
import type { HeartbeatRequest as _upfleet_agent_v1_HeartbeatRequest, HeartbeatRequest__Output as _upfleet_agent_v1_HeartbeatRequest__Output } from './upfleet/agent/v1/HeartbeatRequest';
import type { HeartbeatResponse as _upfleet_agent_v1_HeartbeatResponse, HeartbeatResponse__Output as _upfleet_agent_v1_HeartbeatResponse__Output } from './upfleet/agent/v1/HeartbeatResponse';
import type { HttpHeader as _upfleet_agent_v1_HttpHeader, HttpHeader__Output as _upfleet_agent_v1_HttpHeader__Output } from './upfleet/agent/v1/HttpHeader';
import type { HttpRequest as _upfleet_agent_v1_HttpRequest, HttpRequest__Output as _upfleet_agent_v1_HttpRequest__Output } from './upfleet/agent/v1/HttpRequest';
import type { RegisterRequest as _upfleet_agent_v1_RegisterRequest, RegisterRequest__Output as _upfleet_agent_v1_RegisterRequest__Output } from './upfleet/agent/v1/RegisterRequest';
import type { RegisterResponse as _upfleet_agent_v1_RegisterResponse, RegisterResponse__Output as _upfleet_agent_v1_RegisterResponse__Output } from './upfleet/agent/v1/RegisterResponse';
import type { ResultBatch as _upfleet_agent_v1_ResultBatch, ResultBatch__Output as _upfleet_agent_v1_ResultBatch__Output } from './upfleet/agent/v1/ResultBatch';
import type { RunNowAck as _upfleet_agent_v1_RunNowAck, RunNowAck__Output as _upfleet_agent_v1_RunNowAck__Output } from './upfleet/agent/v1/RunNowAck';
import type { RunNowReport as _upfleet_agent_v1_RunNowReport, RunNowReport__Output as _upfleet_agent_v1_RunNowReport__Output } from './upfleet/agent/v1/RunNowReport';
import type { RunNowRequest as _upfleet_agent_v1_RunNowRequest, RunNowRequest__Output as _upfleet_agent_v1_RunNowRequest__Output } from './upfleet/agent/v1/RunNowRequest';
import type { Screenshot as _upfleet_agent_v1_Screenshot, Screenshot__Output as _upfleet_agent_v1_Screenshot__Output } from './upfleet/agent/v1/Screenshot';
import type { WatchAssignmentsRequest as _upfleet_agent_v1_WatchAssignmentsRequest, WatchAssignmentsRequest__Output as _upfleet_agent_v1_WatchAssignmentsRequest__Output } from './upfleet/agent/v1/WatchAssignmentsRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  upfleet: {
    agent: {
      v1: {
        AgentService: SubtypeConstructor<typeof grpc.Client, _upfleet_agent_v1_AgentServiceClient> & { service: _upfleet_agent_v1_AgentServiceDefinition }
        Assertion: MessageTypeDefinition<_upfleet_agent_v1_Assertion, _upfleet_agent_v1_Assertion__Output>
        Assignment: MessageTypeDefinition<_upfleet_agent_v1_Assignment, _upfleet_agent_v1_Assignment__Output>
        AssignmentDelta: MessageTypeDefinition<_upfleet_agent_v1_AssignmentDelta, _upfleet_agent_v1_AssignmentDelta__Output>
        AssignmentSnapshot: MessageTypeDefinition<_upfleet_agent_v1_AssignmentSnapshot, _upfleet_agent_v1_AssignmentSnapshot__Output>
        AssignmentUpdate: MessageTypeDefinition<_upfleet_agent_v1_AssignmentUpdate, _upfleet_agent_v1_AssignmentUpdate__Output>
        BatchAck: MessageTypeDefinition<_upfleet_agent_v1_BatchAck, _upfleet_agent_v1_BatchAck__Output>
        BrowserStep: MessageTypeDefinition<_upfleet_agent_v1_BrowserStep, _upfleet_agent_v1_BrowserStep__Output>
        CheckKind: EnumTypeDefinition
        CheckResult: MessageTypeDefinition<_upfleet_agent_v1_CheckResult, _upfleet_agent_v1_CheckResult__Output>
        HeartbeatRequest: MessageTypeDefinition<_upfleet_agent_v1_HeartbeatRequest, _upfleet_agent_v1_HeartbeatRequest__Output>
        HeartbeatResponse: MessageTypeDefinition<_upfleet_agent_v1_HeartbeatResponse, _upfleet_agent_v1_HeartbeatResponse__Output>
        HttpHeader: MessageTypeDefinition<_upfleet_agent_v1_HttpHeader, _upfleet_agent_v1_HttpHeader__Output>
        HttpRequest: MessageTypeDefinition<_upfleet_agent_v1_HttpRequest, _upfleet_agent_v1_HttpRequest__Output>
        RegisterRequest: MessageTypeDefinition<_upfleet_agent_v1_RegisterRequest, _upfleet_agent_v1_RegisterRequest__Output>
        RegisterResponse: MessageTypeDefinition<_upfleet_agent_v1_RegisterResponse, _upfleet_agent_v1_RegisterResponse__Output>
        ResultBatch: MessageTypeDefinition<_upfleet_agent_v1_ResultBatch, _upfleet_agent_v1_ResultBatch__Output>
        RunNowAck: MessageTypeDefinition<_upfleet_agent_v1_RunNowAck, _upfleet_agent_v1_RunNowAck__Output>
        RunNowReport: MessageTypeDefinition<_upfleet_agent_v1_RunNowReport, _upfleet_agent_v1_RunNowReport__Output>
        RunNowRequest: MessageTypeDefinition<_upfleet_agent_v1_RunNowRequest, _upfleet_agent_v1_RunNowRequest__Output>
        Screenshot: MessageTypeDefinition<_upfleet_agent_v1_Screenshot, _upfleet_agent_v1_Screenshot__Output>
        WatchAssignmentsRequest: MessageTypeDefinition<_upfleet_agent_v1_WatchAssignmentsRequest, _upfleet_agent_v1_WatchAssignmentsRequest__Output>
      }
    }
  }
}

