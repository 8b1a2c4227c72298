import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readTestFile } from '../src/offline/testing/read-test-file';
import { REPO_ROOT } from './support/cli';

interface Example {
  line: number;
  exit: number;
  expect: string;
  script: string;
}

/** The "Offline" section of docs/cli.md: from its heading to the next section of the same level. */
function offlineSection(): { text: string; firstLine: number } {
  const text = readFileSync(path.join(REPO_ROOT, 'docs', 'cli.md'), 'utf8');
  const start = text.indexOf('## Offline');
  if (start < 0) throw new Error('docs/cli.md has no "Offline" section');
  const end = text.indexOf('\n## ', start + 1);
  return { text: text.slice(start, end < 0 ? undefined : end), firstLine: text.slice(0, start).split('\n').length };
}

const MARK = /<!-- cli-example exit=(\d+) expect="((?:[^"\\]|\\.)*)" -->\n```sh\n([\s\S]*?)```/g;

function examples(): Example[] {
  const { text, firstLine } = offlineSection();
  return [...text.matchAll(MARK)].map((match) => ({
    line: firstLine + text.slice(0, match.index).split('\n').length - 1,
    exit: Number(match[1]),
    expect: (match[2] ?? '').replace(/\\"/g, '"'),
    script: match[3] ?? '',
  }));
}

describe('docs/cli.md, Offline section', () => {
  it('marks every shell block as a tested example', () => {
    const { text } = offlineSection();
    const shellBlocks = text.match(/```sh\n/g) ?? [];
    expect(examples().length).toBe(shellBlocks.length);
    expect(shellBlocks.length).toBeGreaterThanOrEqual(5);
  });

  it('shows a test file the reader accepts, using every key of the format', () => {
    const { text } = offlineSection();
    const block = /```yaml\n([\s\S]*?)```/.exec(text)?.[1];
    if (block === undefined) throw new Error('the Offline section shows no test file');
    const read = readTestFile(path.join('examples', 'tests', 'shown.test.yaml'), block);
    if (!read.ok) throw new Error(JSON.stringify(read.problems));
    const [test] = read.file.tests;
    expect(read.file.pips.map((stub) => [stub.parameters === null, stub.fail])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    expect(read.file.pxps).toHaveLength(1);
    expect(test?.history).toHaveLength(1);
    expect(test?.expect).toMatchObject({ allowed: false, delay: 0, modifiers: [] });
    expect(test !== undefined && 'event' in test ? test.expect.executes : undefined).toHaveLength(2);
  });

  it.each(examples().map((example) => [example.line, example.script.trim(), example] as const))(
    'runs the example at line %i: %s',
    (_line, _script, example) => {
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', example.script], { cwd: REPO_ROOT, encoding: 'utf8' });
      expect({ status: run.status, stderr: run.status === example.exit ? '' : run.stderr }).toEqual({ status: example.exit, stderr: '' });
      expect(run.stdout).toContain(example.expect);
    },
  );
});
