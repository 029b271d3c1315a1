// Agent downloads: the agent executable GET /downloads serves, built from this checkout on demand.
import { agentInstallRoutes, buildingAgentSource } from '../http/agent-install/routes';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createAgentDownloadsFeature(base: Foundation) {
  const agentArtifact = buildingAgentSource(base.logger);
  return {
    name: 'agent downloads',
    routes: () => ({ outside: [agentInstallRoutes({ artifact: agentArtifact, publicUrl: base.config.publicUrl, allowHttp: base.config.allowHttpInstall, logger: base.logger })] }),
    services: {
      agentArtifact,
      /** Builds the executable now (in the background) when it is missing. */
      prepare() {
        agentArtifact().catch((err: unknown) => base.logger.warn({ err }, 'the agent executable could not be built; GET /downloads will try again'));
      },
    },
  } satisfies Feature<unknown>;
}
