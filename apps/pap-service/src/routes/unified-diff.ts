import { createTwoFilesPatch } from 'diff';

/**
 * Beyond this many inserted and deleted lines the minimal diff is not searched for: the Myers search grows with the
 * square of the edit distance, and two 5 MiB texts that share nothing would hold the event loop for seconds. Such
 * texts get one hunk that removes every old line and adds every new one: still a correct unified diff.
 */
export const MAX_EDIT_LINES = 2_000;

/** A unified diff (3 lines of context) from `before` to `after`, with the `---`/`+++` names given. */
export function unifiedDiff(beforeName: string, afterName: string, before: string, after: string): string {
  const minimal = createTwoFilesPatch(beforeName, afterName, before, after, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LINES });
  return minimal ?? wholeReplacement(beforeName, afterName, before, after);
}

function wholeReplacement(beforeName: string, afterName: string, before: string, after: string): string {
  const removed = side(before, '-');
  const added = side(after, '+');
  const range = (lines: number) => (lines === 0 ? '0,0' : `1,${lines}`);
  return [
    '===================================================================',
    `--- ${beforeName}`,
    `+++ ${afterName}`,
    `@@ -${range(removed.count)} +${range(added.count)} @@`,
    ...removed.lines,
    ...added.lines,
    '',
  ].join('\n');
}

/** Every line of `text` marked with `sign`, and the marker git and patch expect when the last line has no newline. */
function side(text: string, sign: '-' | '+'): { count: number; lines: string[] } {
  if (text === '') return { count: 0, lines: [] };
  const ended = text.endsWith('\n');
  const lines = (ended ? text.slice(0, -1) : text).split('\n').map((line) => `${sign}${line}`);
  return { count: lines.length, lines: ended ? lines : [...lines, '\\ No newline at end of file'] };
}
