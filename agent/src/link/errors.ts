// The one place that decides whether a link failure ends the agent or only delays it.
import { grpc } from '@upfleet/proto';

export type LinkErrorKind = 'fatal' | 'transient';

export class LinkFatalError extends Error {}

/** What OpenSSL and grpc-js say when the control plane's certificate cannot be verified. */
const TLS_TRUST_ERROR = /certificate|self[- ]signed|unable to (get|verify)|Hostname\/IP does not match|ERR_TLS|SSL routines|handshake/i;

export const UNTRUSTED_CERT_MESSAGE =
  "the control plane's certificate is not trusted: use a token from 'upfleet agent token create' or pass --ca-file";

/**
 * Revoked tokens and credentials are fatal (retrying cannot help); so is a TLS trust failure
 * before the agent ever registered (it was started with the wrong trust settings). Everything
 * else, and every failure of a registered agent but a revocation, backs off and retries.
 */
export function classifyLinkError(err: unknown, during: 'register' | 'session'): { kind: LinkErrorKind; message: string } {
  if (err instanceof LinkFatalError) return { kind: 'fatal', message: err.message };
  const e = err as Partial<grpc.ServiceError>;
  const detail = e.details || e.message || String(err);
  if (during === 'register' && e.code === grpc.status.UNAVAILABLE && TLS_TRUST_ERROR.test(detail)) {
    return { kind: 'fatal', message: `${UNTRUSTED_CERT_MESSAGE} (${detail})` };
  }
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
