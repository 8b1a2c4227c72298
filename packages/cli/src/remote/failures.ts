/**
 * Exit codes of the remote commands (the program's own: 0 success, 1 the server refused or a check failed,
 * 2 usage errors, unreadable input, or a server that cannot be reached), and the failures that carry them.
 */
export const REMOTE_EXIT = { ok: 0, refused: 1, usage: 2 } as const;

/** Something the user must change before the command can run: a flag, a file, a login. Exit 2. */
export class UsageFailure extends Error {
  readonly exitCode = REMOTE_EXIT.usage;
}

/** The server could not be reached or did not answer. Exit 2. */
export class TransportFailure extends Error {
  readonly exitCode = REMOTE_EXIT.usage;
}

/** The server answered and said no; `lines` is what the user reads, already formatted. Exit 1. */
export class RefusedFailure extends Error {
  readonly exitCode = REMOTE_EXIT.refused;
  constructor(readonly lines: readonly string[]) {
    super(lines[0] ?? 'the server refused the request');
  }
}
