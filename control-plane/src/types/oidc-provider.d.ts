// oidc-provider ships no type declarations; the test uses its documented constructor and callback().
declare module 'oidc-provider' {
  import type { RequestListener } from 'node:http';
  interface Account { accountId: string; claims(): Record<string, unknown> | Promise<Record<string, unknown>> }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & { findAccount?: (ctx: unknown, id: string) => Account | Promise<Account> });
    callback(): RequestListener;
  }
}
