import type { RemoteContext } from './context';
import { InvalidArgumentError } from 'commander';
import { REMOTE_EXIT, RefusedFailure, TransportFailure, UsageFailure } from './failures';

/**
 * Runs a command's body and turns its outcome into an exit code: what the body returns, or 1 for a refusal and 2
 * for a usage or transport failure, each printed once on standard error. Anything else is a bug and is rethrown.
 */
export async function runAction(context: RemoteContext, body: () => Promise<number>): Promise<void> {
  let code: number;
  try {
    code = await body();
  } catch (error) {
    if (error instanceof RefusedFailure) {
      for (const line of error.lines) context.err(`${line}\n`);
      code = REMOTE_EXIT.refused;
    } else if (error instanceof UsageFailure || error instanceof TransportFailure) {
      context.err(`error: ${error.message}\n`);
      code = error.exitCode;
    } else {
      throw error;
    }
  }
  context.setExitCode(code);
}

/** The parser of `--min-revision`: a non-negative integer. */
export function parseRevision(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new InvalidArgumentError(`\`${text}\` is not a revision; expected a non-negative integer`);
  return Number(text);
}
