#!/usr/bin/env node
// The CLI runs its TypeScript directly through tsx (no build step), like the rest of the repo.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/index.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
// Once a command is done, a lingering handle (gRPC keepalive, a stuck socket) must not keep the
// process alive; unref'd, so a clean exit is not delayed.
setTimeout(() => process.exit(code), 500).unref();
