#!/usr/bin/env node
// The CLI runs its TypeScript directly through tsx (no build step), like the rest of the repo.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/index.ts');
process.exitCode = await main(process.argv.slice(2));
