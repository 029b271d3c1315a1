// Shared zod schemas of the REST API (server parses with them, web forms validate with them).
export * from './billing';
