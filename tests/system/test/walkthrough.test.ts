import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, startStack, TEST_NATS_URL, type Stack } from '@custos/test-kit';

const run = promisify(execFile);

/** The shell commands of the README's walk-through, exactly as a reader copies them. */
function walkthroughScript(): string {
  const readme = readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
  const section = /<!-- walkthrough:start -->\n```bash\n([\s\S]*?)```\n<!-- walkthrough:end -->/.exec(readme);
  if (!section) throw new Error('README has no walk-through section');
  return section[1]!;
}

describe('the README walk-through', () => {
  let stack: Stack;

  beforeAll(async () => {
    // The README starts Custos with these credentials.
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 1, admin: { id: 'admin', secret: 'change-me-now-0123' } });
  }, 120_000);

  afterAll(() => stack?.stop(), 60_000);

  it('works verbatim and shows what the README says', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
      env: { ...process.env, AUTH: stack.auth.url, PAP: stack.pap.url, PDP: stack.pdps[0]!.url },
      timeout: 60_000,
    });
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
  }, 90_000);
});
