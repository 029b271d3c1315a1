// The one place that decides whether a link failure ends the agent or only delays it.
import { grpc } from '@upfleet/proto';

export type LinkErrorKind = 'fatal' | 'transient';

export class LinkFatalError extends Error {}

/** Revoked tokens and credentials are fatal (retrying cannot help); everything else backs off. */
export function classifyLinkError(err: unknown, during: 'register' | 'session'): { kind: LinkErrorKind; message: string } {
  if (err instanceof LinkFatalError) return { kind: 'fatal', message: err.message };
  const e = err as Partial<grpc.ServiceError>;
  const detail = e.details || e.message || String(err);
  switch (e.code) {
    case grpc.status.UNAUTHENTICATED:
    case grpc.status.PERMISSION_DENIED:
      return {
        kind: 'fatal',
        message: during === 'register'
          ? `the control plane rejected the bootstrap token (${detail}); create a new one with 'upfleet agent token create'`
          : `the control plane rejected this agent's credential (${detail}); it was revoked: register again with a new token and an empty data dir`,
      };
    case grpc.status.INVALID_ARGUMENT:
      if (during === 'register') return { kind: 'fatal', message: `registration refused: ${detail}` };
      return { kind: 'transient', message: detail };
    default:
      return { kind: 'transient', message: detail };
  }
}
