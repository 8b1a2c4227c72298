import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@custos/test-kit';

/** The policy the README's walk-through adds (step 3), as the reader copies it. */
export function walkthroughPolicy(): string {
  const readme = readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
  const step = /"\$PAP\/ws\/policy" -d '\n([\s\S]*?<\/policy>)'/.exec(readme);
  if (!step?.[1]) throw new Error('README has no policy in its walk-through');
  return `${step[1]}\n`;
}
