// One HTTP/1.1 request and its response on a socket the prober has just connected: the request
// written as undici writes it, the response read with llhttp, and every failure worded as undici
// words it (describeNetError reads these), so a check reads the same through either path. No
// request queue, no dispatcher, no reuse: the socket is destroyed when the exchange ends.
import http from 'node:http';
import type net from 'node:net';
import { PARSE_OK, PARSE_PAUSED, ResponseParser, type ParserCallbacks } from './llhttp';

export interface H1Request {
  method: string;
  /** path and query */
  path: string;
  /** the host header's value unless the headers carry one */
  host: string;
  /** lower-case names */
  headers: Record<string, string>;
  body?: string;
}

export interface H1Response {
  status: number;
  /** a redirect's (3xx) location header */
  location?: string;
  bodyBytes: number;
  truncated: boolean;
  /** lower-case names, repeated ones joined with ', ' (when keepBodyBytes > 0) */
  headers?: Record<string, string>;
  text?: string;
}

export interface H1Options {
  /** body bytes read at most; the response ends there as truncated */
  maxBody: number;
  /** headers and up to this many body bytes kept */
  keepBodyBytes: number;
  /** the final (non-1xx) response's headers are in */
  onResponseStart(): void;
}

export interface H1Exchange {
  done: Promise<H1Response>;
  /** Ends the exchange at once with this error (the socket is destroyed). */
  abort(err: Error): void;
}

const withCode = (message: string, code?: string): Error => Object.assign(new Error(message), code ? { code } : {});
// undici's SocketError: one text for every way a connection ends before its response did.
const socketError = (message: string): Error => withCode(message, 'UND_ERR_SOCKET');
const lengthMismatch = (): Error => withCode('Response body length does not match content-length header', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH');
const headersOverflow = (): Error => withCode('Headers Overflow Error', 'UND_ERR_HEADERS_OVERFLOW');

const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const PAYLOAD_METHODS = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH']);

/** The request's bytes before the body, or the error undici gives for the same request. */
export function requestHead(req: H1Request): H1Head | Error {
  if (!TOKEN.test(req.method)) return withCode('invalid request method', 'UND_ERR_INVALID_ARG');
  if (req.path[0] !== '/') return withCode('path must be an absolute URL or start with a slash', 'UND_ERR_INVALID_ARG');
  let host = req.host;
  let lines = '';
  for (const [name, value] of Object.entries(req.headers)) {
    if (!TOKEN.test(name)) return withCode('invalid header key', 'UND_ERR_INVALID_ARG');
    if (BAD_VALUE.test(value)) return withCode(`invalid ${name} header`, 'UND_ERR_INVALID_ARG');
    if (name === 'host') host = value;
    else lines += `${name}: ${value}\r\n`;
  }
  const body = req.body ? Buffer.from(req.body) : undefined;
  // HEAD closes after its answer (a server may send a body anyway), as undici does
  const connection = req.method === 'HEAD' ? 'close' : 'keep-alive';
  let head = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${host}\r\nconnection: ${connection}\r\n${lines}`;
  if (body) head += `content-length: ${body.length}\r\n\r\n`;
  else head += PAYLOAD_METHODS.has(req.method) ? 'content-length: 0\r\n\r\n' : '\r\n';
  return { method: req.method, head, body };
}

/** The request's bytes (requestHead's answer) and its method. */
export interface H1Head { method: string; head: string; body?: Buffer }

export function exchangeH1(socket: net.Socket, req: H1Head, opts: H1Options): H1Exchange {
  let resolve!: (r: H1Response) => void;
  let reject!: (e: Error) => void;
  const done = new Promise<H1Response>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const out: H1Response = { status: 0, bodyBytes: 0, truncated: false };
  const keep = opts.keepBodyBytes;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let settled = false;
  // the message being read (a 1xx is one, then the final response)
  let statusCode = 0;
  let shouldKeepAlive = false;
  let raw: Buffer[] = [];
  let headersSize = 0;
  let contentLength = '';
  let bytesRead = 0;
  const maxHeaderSize = http.maxHeaderSize;

  const settle = (err?: Error): void => {
    if (settled) return;
    settled = true;
    parser.destroy();
    socket.destroy();
    if (err) return reject(err);
    if (keep > 0) out.text = Buffer.concat(kept).toString('utf8');
    resolve(out);
  };
  const parseError = (): Error =>
    contentLength && bytesRead !== parseInt(contentLength, 10) ? lengthMismatch() : withCode(parser.errorReason());
  /** The stream ended: a body read until close is complete, anything else is an error. */
  const finish = (): Error | null => {
    const ret = parser.finish();
    return ret === PARSE_OK || ret === PARSE_PAUSED ? null : parseError();
  };
  const track = (len: number): void => {
    headersSize += len;
    if (headersSize >= maxHeaderSize) settle(headersOverflow());
  };

  const callbacks: ParserCallbacks = {
    onHeaderField(buf) {
      if ((raw.length & 1) === 0) raw.push(buf);
      else raw[raw.length - 1] = Buffer.concat([raw[raw.length - 1], buf]);
      track(buf.length);
      return settled ? -1 : 0;
    },
    onHeaderValue(buf) {
      if ((raw.length & 1) === 1) raw.push(buf);
      else raw[raw.length - 1] = Buffer.concat([raw[raw.length - 1], buf]);
      const name = raw[raw.length - 2];
      if (name.length === 14 && name.toString('latin1').toLowerCase() === 'content-length') contentLength += buf.toString('latin1');
      track(buf.length);
      return settled ? -1 : 0;
    },
    onHeadersComplete(status, upgrade, keepAlive) {
      if (settled) return -1;
      // an unasked 100 Continue, or an upgrade nobody asked for: the server is misbehaving
      if (status === 100) return settle(socketError('bad response')), -1;
      if (upgrade) return settle(socketError('bad upgrade')), -1;
      statusCode = status;
      shouldKeepAlive = keepAlive;
      const pairs = raw;
      raw = [];
      headersSize = 0;
      if (status >= 200) {
        opts.onResponseStart();
        out.status = status;
        const headers: Record<string, string> | undefined = keep > 0 ? {} : undefined;
        // only a redirect's location is read, unless the headers are kept
        const wanted = headers !== undefined || (status >= 300 && status < 400);
        for (let i = 0; wanted && i < pairs.length; i += 2) {
          const name = pairs[i].toString('latin1').toLowerCase();
          const value = pairs[i + 1].toString('latin1');
          if (name === 'location' && out.location === undefined) out.location = value;
          if (headers) {
            const joined = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
            Object.defineProperty(headers, name, { value: joined, enumerable: true, configurable: true, writable: true });
          }
        }
        if (headers) out.headers = headers;
      }
      return req.method === 'HEAD' || status < 200 ? 1 : 0;
    },
    onBody(buf) {
      if (settled) return -1;
      bytesRead += buf.length;
      if (keptBytes < keep) {
        const part = buf.subarray(0, keep - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      out.bodyBytes += buf.length;
      if (out.bodyBytes >= maxBody) {
        out.truncated = true;
        settle();
        return PARSE_PAUSED;
      }
      return 0;
    },
    onMessageComplete() {
      if (settled) return PARSE_PAUSED;
      const status = statusCode;
      statusCode = 0;
      raw = [];
      headersSize = 0;
      if (status < 200) {
        contentLength = '';
        bytesRead = 0;
        return 0;
      }
      if (req.method !== 'HEAD' && contentLength && bytesRead !== parseInt(contentLength, 10)) settle(lengthMismatch());
      else settle();
      return PARSE_PAUSED;
    },
  };
  const maxBody = opts.maxBody;
  const parser = new ResponseParser(callbacks);

  socket.on('data', (chunk: Buffer) => {
    if (settled) return;
    try {
      const ret = parser.execute(chunk);
      if (!settled && ret !== PARSE_OK && ret !== PARSE_PAUSED) settle(parseError());
    } catch (err) {
      // a check's failure is its result, never the thread's end
      settle(err as Error);
    }
  });
  socket.on('error', (err: NodeJS.ErrnoException) => {
    if (settled) return;
    // a reset right after a response that closes its connection may still have completed it
    if (err.code === 'ECONNRESET' && statusCode && !shouldKeepAlive) {
      const parserErr = finish();
      if (parserErr) settle(parserErr);
      return;
    }
    settle(err);
  });
  socket.on('end', () => {
    if (settled) return;
    if (statusCode && !shouldKeepAlive) {
      const parserErr = finish();
      if (parserErr) settle(parserErr);
      return;
    }
    settle(socketError('other side closed'));
  });
  socket.on('close', () => {
    if (settled) return;
    const parserErr = statusCode && !shouldKeepAlive ? finish() : null;
    settle(parserErr ?? socketError('closed'));
  });

  if (!req.body) socket.write(req.head, 'latin1');
  else {
    socket.cork();
    socket.write(req.head, 'latin1');
    socket.write(req.body);
    socket.uncork();
  }
  return { done, abort: (err) => settle(err) };
}
