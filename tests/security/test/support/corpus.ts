import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The attack corpus: one data file per attack and a manifest of what each must get (corpus/manifest.json). */
export const CORPUS_DIR = path.join(__dirname, '..', '..', 'corpus');

export type Target = 'POST /ws/policy' | 'POST /event' | 'POST /event/explain';

export interface Expectation {
  status: number;
  code: string;
  /** A regular expression the problem's detail or one of its error messages must match. */
  match?: string;
}

export interface Attack {
  file: string;
  target: Target;
  /** Content-Type to send; by default application/xml for pap, application/json for pdp. */
  contentType?: string;
  expect: Expectation;
  why: string;
}

interface Part {
  text: string;
  repeat?: number;
  /** `{n}` in the text becomes 0, 1, 2... on each repetition. */
  numbered?: boolean;
}

export function loadManifest(): Attack[] {
  return (JSON.parse(readFileSync(path.join(CORPUS_DIR, 'manifest.json'), 'utf8')) as { attacks: Attack[] }).attacks;
}

/**
 * The body of an attack: the file as it is, or for `*.gen.json` the concatenation of its parts
 * (so 100,000-deep documents live in the repository as a few lines of data).
 */
export function attackBody(file: string): Buffer {
  const full = path.join(CORPUS_DIR, file);
  if (!file.endsWith('.gen.json')) return readFileSync(full);
  const { parts } = JSON.parse(readFileSync(full, 'utf8')) as { parts: Part[] };
  const pieces: string[] = [];
  for (const part of parts) {
    const times = part.repeat ?? 1;
    if (part.numbered) for (let n = 0; n < times; n += 1) pieces.push(part.text.replaceAll('{n}', String(n)));
    else pieces.push(part.text.repeat(times));
  }
  return Buffer.from(pieces.join(''), 'utf8');
}
