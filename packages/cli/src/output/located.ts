/** A problem found in an input file, located when the reader knows where. */
export interface LocatedProblem {
  /** The file as the user named it (relative to the working directory when found in a directory). */
  file: string;
  line?: number;
  column?: number;
  message: string;
  /** A machine-readable kind when the source has one (the engine's diagnostic codes). */
  code?: string;
}

/** `file:line:column: message`, the form editors and CI annotations understand; parts that are unknown are left out. */
export function formatProblem(problem: LocatedProblem): string {
  let where = problem.file;
  if (problem.line !== undefined) {
    where += `:${problem.line}`;
    if (problem.column !== undefined) where += `:${problem.column}`;
  }
  return `${where}: ${problem.message}`;
}
