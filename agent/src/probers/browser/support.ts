// Whether this agent can run browser checks: a Chromium it can execute. Reported to the control
// plane (placement gives browser checks only to agents that can) and shown by `upfleet agent list`.
import { accessSync, constants, statSync } from 'node:fs';

export interface BrowserSupport {
  ok: boolean;
  /** why not, in one line; '' when it can */
  reason: string;
}

export function browserSupport(chromiumPath: string): BrowserSupport {
  try {
    if (!statSync(chromiumPath).isFile()) return { ok: false, reason: `${chromiumPath} is not a file` };
    accessSync(chromiumPath, constants.X_OK);
    return { ok: true, reason: '' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? `no Chromium at ${chromiumPath} (install Debian's chromium or set UPFLEET_CHROMIUM_PATH)` : `cannot run ${chromiumPath}: ${code ?? (err as Error).message}` };
  }
}
