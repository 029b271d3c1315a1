import { Command } from 'commander';
import type { CliDeps } from '../../context';
import { agentInstallCommand } from './install';
import { agentListCommand } from './list';
import { agentRunCommand } from './run';
import { tokenCommand } from './tokens';

export function agentCommand(deps: CliDeps, setExitCode: (code: number) => void): Command {
  return new Command('agent')
    .description('Probe agents: bootstrap tokens, fleet status, and running an agent')
    .addCommand(tokenCommand(deps))
    .addCommand(agentListCommand(deps))
    .addCommand(agentRunCommand(deps, setExitCode))
    .addCommand(agentInstallCommand(deps, setExitCode));
}
