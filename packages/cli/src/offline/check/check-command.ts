import { EXIT_CODES, type ExitCode } from '../../output/exit-codes';
import { formatProblem } from '../../output/located';
import type { Output } from '../../output/streams';
import { findFiles } from '../files';
import { checkFiles, type FileCheck } from './check-files';

export interface CheckOptions {
  format: 'text' | 'json';
  /** `--solution`: the solutions the documents must belong to, or null. */
  solutions: ReadonlySet<string> | null;
}

/** `custos policy check <file|dir>...`: every problem of every policy and timer; see docs/cli.md. */
export function runCheck(inputs: readonly string[], options: CheckOptions, output: Output): ExitCode {
  const found = findFiles(inputs, '.xml');
  const checks = checkFiles(found.files, { solutions: options.solutions });
  const unreadableFiles = checks.filter((check) => check.kind === null);
  const invalid = checks.filter((check) => check.kind !== null && check.problems.length > 0);
  const noFiles = found.files.length === 0 && found.problems.length === 0;

  if (options.format === 'json') {
    output.out(
      JSON.stringify(
        {
          valid: invalid.length === 0 && unreadableFiles.length === 0 && found.problems.length === 0 && !noFiles,
          files: checks.map(jsonOf),
          errors: [...found.problems, ...(noFiles ? [{ file: inputs.join(' '), message: 'no `*.xml` files found' }] : [])],
        },
        null,
        2,
      ),
    );
  } else {
    for (const problem of found.problems) output.err(formatProblem(problem));
    if (noFiles) output.err(`no \`*.xml\` files found in ${inputs.map((input) => `\`${input}\``).join(', ')}`);
    for (const check of checks) for (const problem of check.problems) output.out(formatProblem(problem));
    const problems = checks.reduce((sum, check) => sum + check.problems.length, 0);
    if (checks.length > 0) {
      output.out(
        `${plural(checks.length, 'file')} checked, ${invalid.length + unreadableFiles.length} invalid, ${plural(problems, 'problem')}`,
      );
    }
  }
  if (found.problems.length > 0 || unreadableFiles.length > 0 || noFiles) return EXIT_CODES.usage;
  return invalid.length > 0 ? EXIT_CODES.failed : EXIT_CODES.ok;
}

function jsonOf(check: FileCheck): object {
  return {
    file: check.file,
    kind: check.kind,
    id: check.id,
    valid: check.kind !== null && check.problems.length === 0,
    problems: check.problems.map(({ line, column, message, code }) => ({ line: line ?? null, column: column ?? null, message, code: code ?? null })),
  };
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
