// The agent for download from this control plane: GET /downloads/upfleet-agent-linux-x64 (+ .sha256)
// and GET /install-agent.sh, the one-line installer `upfleet agent token create` prints.
// The executable is built (npm run build:agent) on first request when missing, then served from
// dist/agent with its sha256 as a strong ETag.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router, type Request } from 'express';
import type { Logger } from '../../logger';

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
  let failed: { at: number; err: unknown } | null = null;
  return () => {
    if (!pending && failed && now() - failed.at < BUILD_RETRY_MS) return Promise.reject(failed.err);
    pending ??= (async () => {
      const started = Date.now();
      const built = await build();
      if (built.built) logger.info({ binary: built.binary, bytes: built.bytes, ms: Date.now() - started }, 'built the agent executable for /downloads');
      return { binary: built.binary, sha256: built.sha256 };
    })().catch((err: unknown) => {
      pending = null; // a request after BUILD_RETRY_MS tries again
      failed = { at: now(), err };
      throw err;
    });
    return pending;
  };
}

/** The script with this server's address baked in (PUBLIC_URL, else the address the request came to). */
export function installScript(baseUrl: string): string {
  return fs.readFileSync(SCRIPT_TEMPLATE, 'utf8').replaceAll('__BASE_URL__', baseUrl);
}

export function agentInstallRoutes(deps: { artifact: AgentArtifactSource; publicUrl: string | null; logger: Logger }): Router {
  const r = Router();
  const log = deps.logger.child({ component: 'downloads' });
  const baseUrl = (req: Request) => deps.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
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
    res.type('text/x-shellscript').send(installScript(baseUrl(req)));
  });
  return r;
}
