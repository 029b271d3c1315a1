// The agent for download from this control plane: GET /downloads/upfleet-agent-linux-x64 (+ .sha256)
// and GET /install-agent.sh, the one-line installer `upfleet agent token create` prints.
// The executable is built (npm run build:agent) on first request when missing, then served from
// dist/agent with its sha256 as a strong ETag.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import type { Logger } from '../../logger';
import { isLoopbackOrigin, publicOrigin } from '../origin';

export const AGENT_DOWNLOAD_NAME = 'upfleet-agent-linux-x64';
const SCRIPT_TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'install-agent.sh');

export interface AgentArtifact {
  binary: string;
  sha256: string;
}

/** Where the executable comes from: built once per process on demand (the build itself is cached by source hash). */
export type AgentArtifactSource = () => Promise<AgentArtifact>;

/** After a failed build, requests are answered 503 for this long before one tries again (the
 *  routes are public: a broken build must not be restarted by every request). */
export const BUILD_RETRY_MS = 60_000;

type Build = () => Promise<{ binary: string; sha256: string; bytes: number; built: boolean }>;
const buildFromRepo: Build = async () => (await import('../../../../agent/sea/build')).buildAgentExecutable();

export function buildingAgentSource(logger: Logger, opts: { now?: () => number; build?: Build } = {}): AgentArtifactSource {
  const now = opts.now ?? Date.now;
  const build = opts.build ?? buildFromRepo;
  let pending: Promise<AgentArtifact> | null = null;
  let failed: { at: number; err: Error } | null = null;
  return () => {
    if (!pending && failed && now() - failed.at < BUILD_RETRY_MS) return Promise.reject(failed.err);
    pending ??= (async () => {
      const started = Date.now();
      const built = await build();
      if (built.built) logger.info({ binary: built.binary, bytes: built.bytes, ms: Date.now() - started }, 'built the agent executable for /downloads');
      return { binary: built.binary, sha256: built.sha256 };
    })().catch((err: unknown) => {
      pending = null; // a request after BUILD_RETRY_MS tries again
      failed = { at: now(), err: err instanceof Error ? err : new Error(String(err)) };
      throw err;
    });
    return pending;
  };
}

export const INSTALL_BAD_HOST = 'This request names no valid host. Set PUBLIC_URL, or ask for the script at the server\'s host name.';
export const INSTALL_NEEDS_HTTPS = 'The install script is served over HTTPS only (a script piped to a shell must not be alterable on the way). ' +
  'Set PUBLIC_URL to this server\'s https:// address, or ALLOW_HTTP_INSTALL=1 on a trusted network.';

/** A value as one single-quoted shell word: the shell reads it as data, never as code. */
export const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The script with this server's address baked in, as a single-quoted word (PUBLIC_URL, else the validated Host). */
export function installScript(baseUrl: string): string {
  const text = fs.readFileSync(SCRIPT_TEMPLATE, 'utf8');
  return text.replaceAll("'__BASE_URL__'", shellQuote(baseUrl)).replaceAll('__BASE_URL__', baseUrl.replace(/[^A-Za-z0-9.:/_[\]@%+-]/g, ''));
}

export function agentInstallRoutes(deps: { artifact: AgentArtifactSource; publicUrl: string | null; allowHttp?: boolean; logger: Logger }): Router {
  const r = Router();
  const log = deps.logger.child({ component: 'downloads' });
  const artifact = async (res: import('express').Response): Promise<AgentArtifact | null> => {
    try {
      return await deps.artifact();
    } catch (err) {
      log.error({ err }, 'the agent executable could not be built');
      res.status(503).json({ success: false, error: 'The agent executable is not available on this server (the build failed; see its log)' });
      return null;
    }
  };

  r.get(`/downloads/${AGENT_DOWNLOAD_NAME}`, async (req, res) => {
    const a = await artifact(res);
    if (!a) return;
    const etag = `"${a.sha256}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'no-cache');
    if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) {
      res.status(304).end();
      return;
    }
    res.sendFile(a.binary, { etag: false, lastModified: false, headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${AGENT_DOWNLOAD_NAME}"` } });
  });
  r.get(`/downloads/${AGENT_DOWNLOAD_NAME}.sha256`, async (_req, res) => {
    const a = await artifact(res);
    if (!a) return;
    res.setHeader('ETag', `"${a.sha256}"`);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/plain').send(`${a.sha256}  ${AGENT_DOWNLOAD_NAME}\n`);
  });
  r.get('/install-agent.sh', (req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    const base = publicOrigin(req, res, deps.publicUrl);
    if (!base) return void res.status(400).json({ success: false, error: INSTALL_BAD_HOST });
    // The script and the executable it fetches travel as the base URL says; plain HTTP only on this machine or when allowed.
    if (!base.startsWith('https://') && !deps.allowHttp && !isLoopbackOrigin(base)) return void res.status(403).json({ success: false, error: INSTALL_NEEDS_HTTPS });
    res.type('text/x-shellscript').send(installScript(base));
  });
  return r;
}
