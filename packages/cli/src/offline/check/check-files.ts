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

/**
 * Checks each file, and across files what pap refuses when they are added one after the other: a second document
 * with an id already taken (pap answers 409).
 */
export function checkFiles(files: readonly string[], read: (file: string) => string = (file) => readFileSync(file, 'utf8')): FileCheck[] {
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
    const problems: LocatedProblem[] = [];
    const owner = owners.get(id);
    if (owner !== undefined) problems.push({ file, code: 'duplicate_id', message: `id \`${id}\` is already used by \`${owner}\`` });
    else owners.set(id, file);
    checks.push({ file, kind: checked.kind, id, problems });
  }
  return checks;
}

function located(diagnostic: { line?: number; column?: number }): { line?: number; column?: number } {
  const where: { line?: number; column?: number } = {};
  if (diagnostic.line !== undefined) where.line = diagnostic.line;
  if (diagnostic.column !== undefined) where.column = diagnostic.column;
  return where;
}
