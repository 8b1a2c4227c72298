import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startStack, TEST_NATS_URL, type Stack } from '@custos/test-kit';
import { expectWalkthroughOutput, walkthroughScript } from './readme-walkthrough';

const run = promisify(execFile);

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
    expectWalkthroughOutput(stdout);
  }, 90_000);
});
