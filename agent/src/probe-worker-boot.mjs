// Worker threads do not inherit the main thread's TypeScript loader on Node 20: register tsx
// here, then load the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./probe-worker.ts');
