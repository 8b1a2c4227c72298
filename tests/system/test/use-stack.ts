import { startStack, TEST_NATS_URL, type Stack, type StackOptions } from '@custos/test-kit';

/** A stack of real processes for one describe block, and an administrator's token for it. */
export interface UsedStack {
  readonly stack: Stack;
  readonly token: string;
}

/**
 * Registers a `beforeAll` starting the stack (on the test NATS server unless `options` name another) and fetching the
 * administrator's token, and an `afterAll` stopping it. Read the fields inside hooks and tests only.
 */
export function useStack(options: Omit<StackOptions, 'natsUrl'> & { natsUrl?: string }): UsedStack {
  let stack: Stack | undefined;
  let token: string | undefined;
  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, ...options });
    token = await stack.adminToken();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the stack is read before it started (use it in hooks and tests)');
    return value;
  };
  return {
    get stack() {
      return started(stack);
    },
    get token() {
      return started(token);
    },
  };
}
