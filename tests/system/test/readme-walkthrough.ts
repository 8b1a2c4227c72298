import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@custos/test-kit';

/** The shell commands of the README's walk-through, exactly as a reader copies them. */
export function walkthroughScript(): string {
  const readme = readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
  const section = /<!-- walkthrough:start -->\n```bash\n([\s\S]*?)```\n<!-- walkthrough:end -->/.exec(readme);
  const script = section?.[1];
  if (script === undefined) throw new Error('README has no walk-through section');
  return script;
}

/** Checks that the walk-through printed what the README says it prints. */
export function expectWalkthroughOutput(stdout: string): void {
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines.slice(0, 3)).toEqual(['true', 'true', 'deployed at revision 1']);

  const decisions = lines.slice(3).map((line) => JSON.parse(line));
  expect(decisions).toHaveLength(3);
  for (const decision of decisions) expect(decision.id.identifier).toMatch(/^urn:decision:[0-9a-f-]{36}$/);

  const [ann, mallory, afterRevoke] = decisions;
  expect(ann.eventAllowed).toBe(true);
  expect(ann.delay).toBe(0);
  expect(ann.modifiers).toEqual([
    {
      name: 'user',
      expression: '$.name.firstName',
      engine: [
        {
          method: 'append',
          parameters: [{ name: 'suffix', value: { value: ' (masked)', type: 'java.lang.String', isComplex: false } }],
        },
      ],
    },
  ]);
  expect(mallory).toMatchObject({ eventAllowed: false, modifiers: [], delay: 0 });
  expect(afterRevoke).toMatchObject({ eventAllowed: true, modifiers: [], delay: 0 });
}
