import { readFileSync } from 'node:fs';
import type { LocatedProblem } from '../../output/located';
import { unreadable } from '../files';
import { checkDocument, type DocumentKind } from './check-document';

/** The outcome of checking one file. */
export interface FileCheck {
  file: string;
  /** Null when the file could not be read. */
  kind: DocumentKind | null;
  /** The policy or timer id, when the document got far enough to have one. */
  id: string | null;
  problems: LocatedProblem[];
}

export interface CheckFilesOptions {
  /** The solutions a caller may write to (its token's), or null for any: pap answers 403 for others. */
  solutions: ReadonlySet<string> | null;
  read: (file: string) => string;
}

const DEFAULTS: CheckFilesOptions = { solutions: null, read: (file) => readFileSync(file, 'utf8') };

/**
 * Checks each file, and what pap refuses beyond the engine when they are added one after the other: a second
 * document with an id already taken (409) and, when the solutions of the caller are given, a document of another
 * solution (403).
 */
export function checkFiles(files: readonly string[], options: Partial<CheckFilesOptions> = {}): FileCheck[] {
  const { solutions, read } = { ...DEFAULTS, ...options };
  const checks: FileCheck[] = [];
  const owners = new Map<string, string>();
  for (const file of files) {
    let xml: string;
    try {
      xml = read(file);
    } catch (error) {
      checks.push({ file, kind: null, id: null, problems: [{ file, message: unreadable(error) }] });
      continue;
    }
    const checked = checkDocument(xml);
    if (!checked.ok) {
      const problems = checked.diagnostics.map((d) => ({ file, message: d.message, code: d.code, ...located(d) }));
      checks.push({ file, kind: checked.kind, id: null, problems });
      continue;
    }
    const id = checked.kind === 'policy' ? checked.policy.id : checked.timer.id;
    const solution = checked.kind === 'policy' ? checked.policy.solution : checked.timer.solution;
    const problems: LocatedProblem[] = [];
    if (solutions !== null && !solutions.has(solution)) {
      problems.push({
        file,
        code: 'foreign_solution',
        message: `\`${id}\` belongs to solution \`${solution}\`, not to ${[...solutions].map((s) => `\`${s}\``).join(' or ')}`,
        ...idLocation(xml, id),
      });
    }
    const owner = owners.get(id);
    if (owner !== undefined) problems.push({ file, code: 'duplicate_id', message: `id \`${id}\` is already used by \`${owner}\`` });
    else owners.set(id, file);
    checks.push({ file, kind: checked.kind, id, problems });
  }
  return checks;
}

/** Where the `id` attribute holding `id` is written (the first one), for a problem about the id as a whole. */
function idLocation(xml: string, id: string): { line?: number; column?: number } {
  const match = new RegExp(`\\bid\\s*=\\s*["']${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']`).exec(xml);
  if (match === null) return {};
  const before = xml.slice(0, match.index).split('\n');
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
}

function located(diagnostic: { line?: number; column?: number }): { line?: number; column?: number } {
  const where: { line?: number; column?: number } = {};
  if (diagnostic.line !== undefined) where.line = diagnostic.line;
  if (diagnostic.column !== undefined) where.column = diagnostic.column;
  return where;
}
