import { grpc, loadAgentService, type AgentServiceHandlers } from '@upfleet/proto';
import type { GrpcTlsMaterial } from './tls';
import { decodeResultBatch } from './result-batch-decoder';

/** AgentService as proto-loader defines it, with ReportResults read by the one-pass decoder. */
export function agentServiceDefinition(): grpc.ServiceDefinition {
  const def = loadAgentService().service;
  return { ...def, ReportResults: { ...def.ReportResults, requestDeserialize: decodeResultBatch } };
}

export interface GrpcServerHandle {
  port: number;
  close(): Promise<void>;
}

/** Binds AgentService on host:port with TLS (or plaintext when tls is null, for loopback tests). */
export async function startGrpcServer(handlers: AgentServiceHandlers, host: string, port: number, tls: GrpcTlsMaterial | null): Promise<GrpcServerHandle> {
  const server = new grpc.Server({
    'grpc.keepalive_time_ms': 20_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.http2.min_ping_interval_without_data_ms': 5_000,
    'grpc.max_receive_message_length': 32 * 1024 * 1024,
  });
  server.addService(agentServiceDefinition(), handlers);
  const creds = tls
    ? grpc.ServerCredentials.createSsl(null, [{ private_key: Buffer.from(tls.keyPem), cert_chain: Buffer.from(tls.certPem) }], false)
    : grpc.ServerCredentials.createInsecure();
  const bound: number = await new Promise((resolve, reject) =>
    server.bindAsync(`${host === '0.0.0.0' ? '0.0.0.0' : host}:${port}`, creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
