import type { Command } from 'commander';
import { registerApplyCommand } from './apply-command';
import { registerComponentCommands } from './component-commands';
import { processContext, type RemoteContext } from './context';
import { registerDecisionCommands } from './decision-commands';
import { registerDocumentCommands } from './document-commands';
import { registerLoginCommands } from './login-commands';

/**
 * `custos login`, the management commands, `decide`, `explain` and `apply`. The context is the real process unless
 * a test passes its own.
 */
export function registerRemoteCommands(program: Command, context: RemoteContext = processContext()): void {
  registerLoginCommands(program, context);
  registerDocumentCommands(program, 'policy', context);
  registerComponentCommands(program, context);
  registerDocumentCommands(program, 'timer', context);
  registerDecisionCommands(program, context);
  registerApplyCommand(program, context);
}
