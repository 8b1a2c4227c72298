import type { Command } from 'commander';
import { registerApplyCommand } from './apply-command';
import { registerAuditCommands } from './audit-commands';
import { registerComponentCommands } from './component-commands';
import { processContext, type RemoteContext } from './context';
import { registerDecisionCommands } from './decision-commands';
import { registerDecisionRecordCommands } from './decision-records-commands';
import { registerDocumentCommands } from './document-commands';
import { registerLoginCommands } from './login-commands';
import { registerSolutionCommands } from './solution-commands';

/**
 * `custos login`, the management commands (documents, components, solution settings), `decide`, `explain` and `apply`. The context is the real process unless
 * a test passes its own.
 */
export function registerRemoteCommands(program: Command, context: RemoteContext = processContext()): void {
  registerLoginCommands(program, context);
  registerDocumentCommands(program, 'policy', context);
  registerComponentCommands(program, context);
  registerDocumentCommands(program, 'timer', context);
  registerDecisionCommands(program, context);
  registerDecisionRecordCommands(program, context);
  registerSolutionCommands(program, context);
  registerApplyCommand(program, context);
  registerAuditCommands(program, context);
}
