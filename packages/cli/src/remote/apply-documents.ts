import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkDocument } from '../offline/check/check-document';
import { formatProblem } from '../output/located';
import { kindOfId, rootIdOf, solutionOfId } from './document-id';
import { UsageFailure } from './failures';
import type { DesiredDocument } from './plan';

async function xmlFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such directory' : code === 'ENOTDIR' ? 'not a directory' : (error as Error).message;
    throw new UsageFailure(`cannot read \`${dir}\`: ${reason}`);
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.xml'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * Every `*.xml` file under `dir` (sub-directories included) as a policy or timer, by the id of its root element.
 * Every file is checked offline as pap would check it (the engine's loader and timer reader); every problem is
 * reported at once, and any problem stops the command before it asks the server anything.
 */
export async function readDocuments(dir: string): Promise<DesiredDocument[]> {
  const documents: DesiredDocument[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const file of await xmlFiles(dir)) {
    let xml: string;
    try {
      xml = await readFile(file, 'utf8');
    } catch (error) {
      problems.push(`${file}: cannot be read: ${(error as Error).message}`);
      continue;
    }
    const id = rootIdOf(xml);
    const kind = id === undefined ? undefined : kindOfId(id);
    if (id === undefined) {
      problems.push(`${file}: the root element has no \`id\` attribute`);
    } else if (kind === undefined || solutionOfId(id) === undefined) {
      problems.push(`${file}: \`${id}\` is neither \`urn:policy:<solution>:<name>\` nor \`urn:timer:<solution>:<name>\``);
    } else if (seen.has(id)) {
      problems.push(`${file}: \`${id}\` is also the id of ${seen.get(id) ?? ''}`);
    } else {
      seen.set(id, file);
      documents.push({ id, kind, file, xml });
      // As `custos policy check` does, and as pap will: a document that would be refused stops the plan here.
      const checked = checkDocument(xml);
      if (!checked.ok) problems.push(...checked.diagnostics.map((d) => formatProblem({ file, message: d.message, ...located(d) })));
    }
  }
  if (problems.length > 0) throw new UsageFailure(`the directory cannot be applied:\n  ${problems.join('\n  ')}`);
  return documents;
}

const located = (d: { line?: number; column?: number }) => ({
  ...(d.line === undefined ? {} : { line: d.line }),
  ...(d.column === undefined ? {} : { column: d.column }),
});
