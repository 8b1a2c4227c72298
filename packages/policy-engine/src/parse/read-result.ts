/** The answer of a reader of user text: a value, or why the text is not one. */
export type ReadResult<T> = { ok: true; value: T } | { ok: false; problem: string };

export const readOk = <T>(value: T): ReadResult<T> => ({ ok: true, value });
export const readProblem = <T>(problem: string): ReadResult<T> => ({ ok: false, problem });
