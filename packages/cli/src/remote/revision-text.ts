import { revisionOf } from './api';
import type { HttpAnswer } from './http-client';

/** ` (policy revision 4)` when pap answered a revision, else nothing. */
export function revisionSuffix(answer: HttpAnswer): string {
  const revision = revisionOf(answer);
  return revision === undefined ? '' : ` (policy revision ${revision})`;
}
