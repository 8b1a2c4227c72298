import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LocatedProblem } from '../output/located';

export interface FoundFiles {
  /** Paths as the user would write them: the argument itself, or joined onto the directory argument. */
  files: string[];
  /** Arguments that do not exist or cannot be read. */
  problems: LocatedProblem[];
}

/**
 * The files the arguments name: a file as it is (whatever its name), a directory searched recursively for names
 * ending in `suffix`, in a stable order (sorted by path). Directories named `node_modules` and hidden ones are skipped.
 */
export function findFiles(inputs: readonly string[], suffix: string): FoundFiles {
  const files: string[] = [];
  const problems: LocatedProblem[] = [];
  for (const input of inputs) {
    let stats;
    try {
      stats = statSync(input);
    } catch (error) {
      problems.push({ file: input, message: unreadable(error) });
      continue;
    }
    if (stats.isDirectory()) {
      try {
        files.push(...walk(input, suffix));
      } catch (error) {
        problems.push({ file: input, message: unreadable(error) });
      }
    } else {
      files.push(input);
    }
  }
  return { files: [...new Set(files)], problems };
}

function walk(directory: string, suffix: string): string[] {
  const found: string[] = [];
  const entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      found.push(...walk(full, suffix));
    } else if (entry.isFile() && entry.name.endsWith(suffix)) {
      found.push(full);
    }
  }
  return found;
}

/** A file system error as a message: lower case, without the errno noise. */
export function unreadable(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  const message = error instanceof Error ? error.message : String(error);
  return `cannot be read: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}
