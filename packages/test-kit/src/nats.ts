import { randomBytes } from 'node:crypto';

export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A NATS_PREFIX no other test run uses, so stacks sharing the server never see each other's messages. */
export function uniqueNatsPrefix(): string {
  return `custos_test_${randomBytes(5).toString('hex')}`;
}
