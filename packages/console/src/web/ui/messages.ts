import { ApiError, problemLine } from '../logic/problem';

/** A sentence for an error shown to the user: the server's detail and its located problems, each with its place. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    const items = error.errors.map(problemLine);
    return items.length > 0 ? `${error.message} (${items.join('; ')})` : error.message;
  }
  if (error instanceof TypeError) return 'pap could not be reached';
  return error instanceof Error ? error.message : String(error);
}
