// A file download from the public API (a results export), streamed to disk: each chunk is written
// before the next is read, so memory stays flat however large the file. The file appears under its
// name only once the whole answer arrived; a transfer cut off midway leaves nothing behind.
import fs from 'node:fs';
import { once } from 'node:events';
import { CliError, oneLine } from '../errors';
import { normalizeServerUrl } from './http';

export interface DownloadProgress {
  /** Lines received so far (NDJSON rows; CSV rows plus its header). */
  lines: number;
  bytes: number;
}

export interface DownloadOptions {
  server: string;
  apiKey: string;
  path: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  /** Where the bytes go: a file path (written to `<path>.part`, renamed at the end), or a writer. */
  output: string | ((chunk: Uint8Array) => void);
  onProgress?: (p: DownloadProgress) => void;
}

export async function downloadFile(o: DownloadOptions): Promise<DownloadProgress> {
  const base = normalizeServerUrl(o.server);
  let res: Response;
  try {
    res = await (o.fetch ?? fetch)(`${base}${o.path}`, { headers: { authorization: `Bearer ${o.apiKey}`, ...o.headers } });
  } catch (err) {
    const cause = err instanceof Error ? (err.cause as { message?: string } | undefined)?.message ?? err.message : String(err);
    throw new CliError('unreachable', `Cannot reach the control plane at ${base}: ${oneLine(cause)}`);
  }
  if (res.status !== 200 || !res.body) throw await refusal(res, base);
  const progress: DownloadProgress = { lines: 0, bytes: 0 };
  const part = typeof o.output === 'string' ? `${o.output}.part` : null;
  const file = part ? fs.createWriteStream(part, { mode: 0o600 }) : null;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      progress.bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) progress.lines++;
      if (file) {
        if (!file.write(chunk)) await once(file, 'drain');
      } else (o.output as (c: Uint8Array) => void)(chunk);
      o.onProgress?.(progress);
    }
    if (file) {
      file.end();
      await once(file, 'finish');
      fs.renameSync(part!, o.output as string);
    }
  } catch (err) {
    file?.destroy();
    if (part) fs.rmSync(part, { force: true });
    if (err instanceof CliError) throw err;
    // The server ends a failed export by cutting the transfer (its headers were already sent).
    throw new CliError('server', `The download from ${base} was cut off after ${progress.bytes} bytes (${oneLine((err as Error).message)}); nothing was written`);
  }
  return progress;
}

async function refusal(res: Response, base: string): Promise<CliError> {
  const text = await res.text().catch(() => '');
  let serverText: string | null = null;
  try {
    const body = JSON.parse(text) as { success?: boolean; error?: unknown };
    if (body.success === false && typeof body.error === 'string') serverText = oneLine(body.error);
  } catch {
    // not the API's JSON: said from the status below
  }
  if (res.status === 401) return new CliError('unauthorized', `API key rejected by ${base}${serverText ? ` (${serverText})` : ''}: check --api-key or UPFLEET_API_KEY`, 401);
  if (res.status === 404) return new CliError('not_found', serverText ?? `Not found on ${base} (is the control plane up to date?)`, 404);
  if (res.status >= 400 && res.status < 500 && serverText) return new CliError('rejected', serverText, res.status);
  return new CliError('server', `The control plane at ${base} failed${serverText ? `: ${serverText}` : ''} (HTTP ${res.status})`, res.status);
}
