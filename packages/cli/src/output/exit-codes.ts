/** Exit codes every command follows: 0 success, 1 a check or test failed, 2 usage errors and unreadable or invalid input. */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2 } as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
