// llhttp (the parser undici and Node's http use), from undici's WebAssembly build, driven directly:
// a check needs one response parsed on one fresh socket, not undici's Client, request queue and
// dispatcher layers around it. One instance per thread; each response gets its own parser state.
import { ERROR, TYPE } from 'undici/lib/llhttp/constants.js';
// The SIMD build: every x64 and arm64 Node 20 runs it (undici falls back only on old ppc64).
import llhttpWasm from 'undici/lib/llhttp/llhttp_simd-wasm.js';

/** What a parser tells about the response it reads; a non-zero return stops or steers llhttp. */
export interface ParserCallbacks {
  onHeaderField(buf: Buffer): number;
  onHeaderValue(buf: Buffer): number;
  /** 0: read the body; 1: the message has no body (HEAD, 1xx); -1: stop with an error */
  onHeadersComplete(statusCode: number, upgrade: boolean, shouldKeepAlive: boolean): number;
  onBody(buf: Buffer): number;
  onMessageComplete(): number;
}

interface LlhttpExports {
  memory: { buffer: ArrayBuffer };
  llhttp_alloc(type: number): number;
  llhttp_free(ptr: number): void;
  llhttp_execute(ptr: number, data: number, len: number): number;
  llhttp_finish(ptr: number): number;
  llhttp_get_error_pos(ptr: number): number;
  llhttp_get_error_reason(ptr: number): number;
  malloc(size: number): number;
  free(ptr: number): void;
}

export const PARSE_OK = ERROR.OK;
export const PARSE_PAUSED = ERROR.PAUSED;
export const PARSE_PAUSED_UPGRADE = ERROR.PAUSED_UPGRADE;

// (the compiler's libs here carry no WebAssembly typings: the little used is typed by hand)
const { WebAssembly: Wasm } = globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => object;
    Instance: new (mod: object, imports: Record<string, Record<string, (...args: number[]) => number>>) => { exports: unknown };
  };
};

let instance: LlhttpExports | null = null;
// The parser running llhttp_execute and the chunk it reads (llhttp calls back synchronously).
let current: ParserCallbacks | null = null;
let currentChunk: Buffer | null = null;
let bufferPtr = 0;
let bufferSize = 0;

const slice = (at: number, len: number): Buffer => {
  const start = at - bufferPtr;
  return currentChunk!.subarray(start, start + len);
};

function llhttp(): LlhttpExports {
  if (instance) return instance;
  const mod = new Wasm.Module(llhttpWasm);
  const inst = new Wasm.Instance(mod, {
    env: {
      wasm_on_url: () => 0,
      wasm_on_status: () => 0,
      wasm_on_message_begin: () => 0,
      wasm_on_header_field: (_p: number, at: number, len: number) => current!.onHeaderField(slice(at, len)),
      wasm_on_header_value: (_p: number, at: number, len: number) => current!.onHeaderValue(slice(at, len)),
      wasm_on_headers_complete: (_p: number, status: number, upgrade: number, keepAlive: number) =>
        current!.onHeadersComplete(status, upgrade === 1, keepAlive === 1),
      wasm_on_body: (_p: number, at: number, len: number) => current!.onBody(slice(at, len)),
      wasm_on_message_complete: () => current!.onMessageComplete(),
    },
  });
  instance = inst.exports as LlhttpExports;
  return instance;
}

/** One HTTP/1.1 response parser (its state lives in the shared instance's memory until freed). */
export class ResponseParser {
  private ptr: number;
  private readonly wasm = llhttp();
  private running = false;
  private freeAfterRun = false;

  constructor(private readonly callbacks: ParserCallbacks) {
    this.ptr = this.wasm.llhttp_alloc(TYPE.RESPONSE);
  }

  /** Feeds bytes; returns llhttp's code (PARSE_OK, a pause, or an error). */
  execute(chunk: Buffer): number {
    const w = this.wasm;
    if (!this.ptr) return PARSE_PAUSED;
    if (chunk.length > bufferSize) {
      if (bufferPtr) w.free(bufferPtr);
      bufferSize = Math.ceil(chunk.length / 4096) * 4096;
      bufferPtr = w.malloc(bufferSize);
    }
    new Uint8Array(w.memory.buffer, bufferPtr, chunk.length).set(chunk);
    current = this.callbacks;
    currentChunk = chunk;
    this.running = true;
    try {
      return w.llhttp_execute(this.ptr, bufferPtr, chunk.length);
    } finally {
      current = null;
      currentChunk = null;
      this.running = false;
      if (this.freeAfterRun) this.destroy();
    }
  }

  /** The end of the stream (a body read until close completes here). */
  finish(): number {
    if (!this.ptr) return PARSE_OK;
    current = this.callbacks;
    this.running = true;
    try {
      return this.wasm.llhttp_finish(this.ptr);
    } finally {
      current = null;
      this.running = false;
      if (this.freeAfterRun) this.destroy();
    }
  }

  /** llhttp's reason for the last error, as undici words it. */
  errorReason(): string {
    const w = this.wasm;
    if (!this.ptr) return '';
    const ptr = w.llhttp_get_error_reason(this.ptr);
    if (!ptr) return '';
    const len = new Uint8Array(w.memory.buffer, ptr).indexOf(0);
    return `Response does not match the HTTP/1.1 protocol (${Buffer.from(w.memory.buffer, ptr, len).toString()})`;
  }

  /** Frees the parser's state; from inside one of its callbacks, once llhttp has returned (freed
   *  earlier, llhttp would go on writing to memory another parser may be given). */
  destroy(): void {
    if (!this.ptr) return;
    if (this.running) {
      this.freeAfterRun = true;
      return;
    }
    this.wasm.llhttp_free(this.ptr);
    this.ptr = 0;
  }
}
