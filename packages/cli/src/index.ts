/**
 * The `custos` command line: offline policy work (check, test) and the management and decision APIs of a running
 * stack. The only entry point of the package; `bin/custos.js` calls `main`.
 */
import { Command, CommanderError } from 'commander';
import { registerOfflineCommands } from './offline/commands';
import { EXIT_CODES } from './output/exit-codes';
import { registerRemoteCommands } from './remote/commands';

/** Exit codes every command follows: 0 success, 1 a check or test failed, 2 usage errors and unreadable input. */
export const EXIT = EXIT_CODES;

export function createProgram(): Command {
  const program = new Command('custos')
    .description('Custos usage control: check and test policies offline, manage and ask a running stack')
    .exitOverride()
    .showHelpAfterError();
  registerOfflineCommands(program);
  registerRemoteCommands(program);
  return program;
}

/** Runs one command line (`process.argv` shape) and resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
}
