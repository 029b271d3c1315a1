// Shared zod schemas of the REST API: the server parses every body and query with them, the web forms
// validate with the same rules, and each failure carries the SPEC's message. Browser-safe (no Node imports).
export * from './common';
export * from './auth';
export * from './endpoints';
export * from './alerts';
export * from './escalation';
export * from './graphs';
export * from './admin';
export * from './forms';
export * from './billing';
export * from './api-keys';
export * from './responses';
export * from './monitors';
export * from './workspaces';
export * from './status-pages';
export * from './status-pages-responses';
export * from './incidents';
export * from './exports';
export * from './reports';
export * from './browser-run';
