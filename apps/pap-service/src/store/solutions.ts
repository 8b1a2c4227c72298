import type { Principal } from '@custos/service-kit';

/** The solutions a caller may see: `null` means all of them. */
export type SolutionFilter = readonly string[] | null;

export const solutionFilterOf = (principal: Principal): SolutionFilter =>
  principal.allSolutions ? null : [...principal.solutions];

/** A WHERE fragment (and its parameter) restricting `column` to the filter; parameter number `index`. */
export function solutionClause(filter: SolutionFilter, column: string, index: number): { sql: string; params: unknown[] } {
  return filter === null ? { sql: 'true', params: [] } : { sql: `${column} = ANY($${index}::text[])`, params: [filter] };
}
