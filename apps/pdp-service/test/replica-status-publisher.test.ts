import { connect, type NatsConnection, type Subscription } from 'nats';
import { replicaStatusSubject, type ReplicaStatusReport } from '@custos/contracts';
import { TEST_NATS_URL, uniqueNatsPrefix, waitFor } from '@custos/test-kit';
import { ReplicaStatusPublisher } from '../src/replica-status-publisher';
import { memoryLogger } from './support/logger';

describe('ReplicaStatusPublisher', () => {
  let nc: NatsConnection;
  let listener: NatsConnection;
  let subscription: Subscription;
  let publisher: ReplicaStatusPublisher | undefined;
  const prefix = uniqueNatsPrefix();
  const received: ReplicaStatusReport[] = [];

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    listener = await connect({ servers: TEST_NATS_URL });
    subscription = listener.subscribe(replicaStatusSubject(prefix), { callback: (_error, msg) => received.push(msg.json<ReplicaStatusReport>()) });
    await listener.flush();
  });

  afterAll(async () => {
    publisher?.stop();
    subscription.unsubscribe();
    await nc.close();
    await listener.close();
  });

  test('reports at once, then within a look of a new revision although the interval is far off', async () => {
    let revision: number | null = null;
    let looks = 0;
    publisher = new ReplicaStatusPublisher({
      nc,
      prefix,
      logger: memoryLogger().logger,
      checkMs: 20,
      // Only a change can explain a second report within the test.
      intervalMs: 600_000,
      status: () => {
        looks += 1;
        return { replica: 'r1', ready: revision !== null, revision, lagMs: 4, pendingChanges: 0, natsConnected: true };
      },
    }).start();

    const first = await waitFor(() => received[0], { what: 'the first report' });
    expect(first).toMatchObject({ replica: 'r1', ready: false, revision: null, lagMs: 4, pendingChanges: 0, natsConnected: true });
    expect(Number.isNaN(Date.parse(first.sentAt))).toBe(false);

    revision = 3;
    const second = await waitFor(() => received[1], { what: 'the report of revision 3' });
    expect(second).toMatchObject({ replica: 'r1', ready: true, revision: 3 });
    // Nothing changes any more: however often it looks, the publisher stays quiet until the interval.
    const looked = looks;
    await waitFor(() => looks >= looked + 5, { what: 'five more looks' });
    await nc.flush();
    await listener.flush();
    expect(received).toHaveLength(2);
  });
});
