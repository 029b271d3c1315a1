// The CLI's one error family: every failure a user can meet becomes a CliError with a one-line
// message; index.ts prints it as `upfleet: <message>` and exits non-zero.
import { stripControls } from './safe-text';

export type CliErrorCode =
  | 'usage' // bad flag value, missing token
  | 'unreachable' // network error or timeout talking to the control plane
  | 'unauthorized' // 401 from the control plane
  | 'not_found' // 404
  | 'rejected' // any other 4xx with an error text
  | 'server' // 5xx or a response that is not the API's JSON shape
  | 'agent' // the agent failed to start
  | 'invalid'; // a monitors file that fails its schema or the plan's limits (nothing was changed)

export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** One line: the CLI never prints a stack, and a multi-line text would break `upfleet: ...`.
 *  Messages often quote the server, so terminal controls are stripped too. */
export function oneLine(text: string): string {
  return stripControls(text).replace(/\s*\n\s*/g, ' ').trim();
}
