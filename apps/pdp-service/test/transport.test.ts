import { connect, type JetStreamClient, type NatsConnection } from 'nats';
import { policySubjects, type PolicyChange, type PolicySnapshot, type PolicySubjects } from '@custos/contracts';
import { TEST_NATS_URL, startOwnNatsServer, uniqueNatsPrefix, waitFor, type OwnNatsServer } from '@custos/test-kit';
import { createPdpMetrics } from '../src/metrics';
import { PolicySetFollower } from '../src/policy-set/follower';
import { SnapshotError } from '@custos/contracts';
import { MAX_REPLAY } from '../src/policy-set/stream-replay';
import { NatsPolicyTransport } from '../src/policy-set/transport';
import { FakePap } from './support/fake-pap';
import { memoryLogger } from './support/logger';
import { allowAll, inhibitAll } from './support/policies';

describe('NatsPolicyTransport', () => {
  it('fails a snapshot attempt at once when nothing listens for snapshot requests', async () => {
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const transport = new NatsPolicyTransport(nc, { prefix: uniqueNatsPrefix(), requester: 'r', logger: memoryLogger().logger, chunkTimeoutMs: 60_000 });
      await expect(transport.fetchSnapshot()).rejects.toThrow(new SnapshotError('nobody answers snapshot requests'));
    } finally {
      await nc.drain();
    }
  });

  it('fails a snapshot attempt when no message of the answer arrives in time', async () => {
    const prefix = uniqueNatsPrefix();
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const transport = new NatsPolicyTransport(nc, { prefix, requester: 'r', logger: memoryLogger().logger, chunkTimeoutMs: 100 });
      const heard: string[] = [];
      nc.subscribe(transport.subjects.snapshot, { callback: (_e, m) => heard.push(m.subject) }); // a pap that never answers
      await nc.flush();
      await expect(transport.fetchSnapshot()).rejects.toThrow(new SnapshotError('no snapshot message arrived within 100 ms'));
      expect(heard).toEqual([transport.subjects.snapshot]);
    } finally {
      await nc.drain();
    }
  });

  it('reassembles a document larger than a message from pieces cut through multi-byte characters', async () => {
    const prefix = uniqueNatsPrefix();
    const pap = await FakePap.start(prefix, { partBytes: 120 });
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const xml = allowAll('urn:policy:acme:ümlaut', 'urn:action:acme:x').replace('<if>', '<!-- äöü € 𝄞 --><if>');
      pap.policies.set('urn:policy:acme:ümlaut', xml);
      pap.revision = 9;
      const transport = new NatsPolicyTransport(nc, { prefix, requester: 'replica-a', logger: memoryLogger().logger });
      const snapshot = await transport.fetchSnapshot();
      expect(snapshot).toEqual({ revision: 9, policies: [{ id: 'urn:policy:acme:ümlaut', xml }] });
      // One part, too large for a message of 120 bytes: it travelled in pieces of at most 120 bytes each.
      expect(pap.messageCounts[0]).toBeGreaterThan(Math.ceil(Buffer.byteLength(xml) / 120));
      expect(pap.requests).toEqual([{ requester: 'replica-a' }]);
    } finally {
      await nc.drain();
      await pap.stop();
    }
  });

  it('reads a snapshot sent in parts of whole documents (format 2)', async () => {
    const prefix = uniqueNatsPrefix();
    const pap = await FakePap.start(prefix, { partBytes: 1200 });
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      for (let n = 0; n < 6; n++) pap.deploy(`urn:policy:acme:ü${n}`, allowAll(`urn:policy:acme:ü${n}`, `urn:action:acme:x${n}`), { announce: false });
      const transport = new NatsPolicyTransport(nc, { prefix, requester: 'replica-a', logger: memoryLogger().logger });
      const snapshot = (await transport.fetchSnapshot()) as PolicySnapshot;
      expect(pap.messageCounts[0]).toBeGreaterThan(2);
      expect(snapshot).toEqual(pap.snapshot());
      expect(snapshot.policies.map((policy) => policy.id)).toEqual([0, 1, 2, 3, 4, 5].map((n) => `urn:policy:acme:ü${n}`));
    } finally {
      await nc.drain();
      await pap.stop();
    }
  });
});

describe('NatsPolicyTransport with a sink', () => {
  it('hands the documents of each part to the sink as it arrives and resolves with the rest of the snapshot', async () => {
    const prefix = uniqueNatsPrefix();
    const pap = await FakePap.start(prefix, { partBytes: 1200 });
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      for (let n = 0; n < 6; n++) pap.deploy(`urn:policy:acme:s${n}`, allowAll(`urn:policy:acme:s${n}`, `urn:action:acme:x${n}`), { announce: false });
      const transport = new NatsPolicyTransport(nc, { prefix, requester: 'replica-a', logger: memoryLogger().logger });
      const handed: string[][] = [];
      const snapshot = await transport.fetchSnapshot((policies) => handed.push(policies.map((policy) => policy.id)));
      expect(handed.length).toBe(pap.messageCounts[0]);
      expect(handed.length).toBeGreaterThan(2);
      expect(handed.flat()).toEqual(pap.snapshot().policies.map((policy) => policy.id));
      expect(snapshot).toEqual({ revision: pap.revision, policies: [] });
    } finally {
      await nc.drain();
      await pap.stop();
    }
  });

  it('fails an answer in parts that loses its last part, after handing over the parts before it', async () => {
    const prefix = uniqueNatsPrefix();
    const pap = await FakePap.start(prefix, { partBytes: 1200 });
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      for (let n = 0; n < 6; n++) pap.deploy(`urn:policy:acme:s${n}`, allowAll(`urn:policy:acme:s${n}`, `urn:action:acme:x${n}`), { announce: false });
      pap.misbehave.push('missing-message');
      const transport = new NatsPolicyTransport(nc, { prefix, requester: 'replica-a', logger: memoryLogger().logger, chunkTimeoutMs: 200 });
      const handed: string[] = [];
      await expect(transport.fetchSnapshot((policies) => handed.push(...policies.map((policy) => policy.id)))).rejects.toThrow(
        new SnapshotError('no snapshot message arrived within 200 ms'),
      );
      const ids = pap.snapshot().policies.map((policy) => policy.id);
      expect(pap.messageCounts[0]).toBeGreaterThan(1);
      expect(handed.length).toBeGreaterThan(0);
      expect(handed.length).toBeLessThan(ids.length);
      expect(handed).toEqual(ids.slice(0, handed.length));
    } finally {
      await nc.drain();
      await pap.stop();
    }
  });
});

describe('following across a NATS restart', () => {
  let nats: OwnNatsServer | undefined;
  const stopServer = () => nats!.stop();
  const startServer = () => nats!.start();
  afterEach(async () => {
    await nats?.destroy();
    nats = undefined;
  });

  it('takes a snapshot after reconnecting, catching changes whose messages were lost', async () => {
    nats = await startOwnNatsServer();
    const servers = nats.url;
    const prefix = uniqueNatsPrefix();
    const pap = await FakePap.start(prefix, { servers });
    const nc: NatsConnection = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
    const log = memoryLogger();
    const metrics = createPdpMetrics(false);
    const transport = new NatsPolicyTransport(nc, { prefix, requester: 'r', logger: log.logger, chunkTimeoutMs: 200 });
    const follower = new PolicySetFollower({ transport, logger: log.logger, metrics, resyncIntervalMs: 0, backoff: { initialMs: 20, maxMs: 100 } });
    try {
      pap.deploy('urn:policy:acme:a', allowAll('urn:policy:acme:a', 'urn:action:acme:x'), { announce: false });
      await follower.start();
      await waitFor(() => follower.active?.revision === 1, { what: 'the first snapshot' });
      expect(transport.connected).toBe(true);

      await stopServer();
      await waitFor(() => !transport.connected, { what: 'the disconnect' });
      // Changes made while NATS is down never reach this replica as messages.
      pap.deploy('urn:policy:acme:b', inhibitAll('urn:policy:acme:b', 'urn:action:acme:x'), { announce: false });
      expect(follower.active?.revision).toBe(1);

      await startServer();
      await waitFor(() => transport.connected, { timeoutMs: 10_000, what: 'the reconnect' });
      await waitFor(() => follower.active?.revision === 2, { timeoutMs: 10_000, what: 'the snapshot after the reconnect' });
      expect(follower.active?.set.has('urn:policy:acme:b')).toBe(true);
      const resyncs = (await metrics.registry.getSingleMetric('resyncs_total')!.get()).values;
      expect(resyncs.find((v) => v.labels.reason === 'reconnect')?.value).toBeGreaterThanOrEqual(1);
      expect(log.lines.some((l) => l.msg === 'nats reconnected')).toBe(true);

      // And changes flow again over the re-established subscription.
      const next = pap.revoke('urn:policy:acme:a');
      await waitFor(() => follower.active?.revision === next, { what: 'a change after the reconnect' });
      expect(follower.active?.set.has('urn:policy:acme:a')).toBe(false);
    } finally {
      await follower.stop();
      await nc.close();
      await pap.stop().catch(() => undefined);
    }
  });
});

describe('replaying changes from the JetStream stream', () => {
  interface Stream {
    prefix: string;
    subjects: PolicySubjects;
    /** Publishes into the stream. */
    js: JetStreamClient;
    /** A replica's transport reading it back. */
    transport: NatsPolicyTransport;
  }

  /** Runs `test` against a fresh stream of pap's shape, deleted afterwards. */
  const withStream = async (test: (stream: Stream) => Promise<void>) => {
    const prefix = uniqueNatsPrefix();
    const subjects = policySubjects(prefix);
    const nc = await connect({ servers: TEST_NATS_URL });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: subjects.stream, subjects: [subjects.changes] });
    try {
      const transport = new NatsPolicyTransport(nc, { prefix, requester: 'r', logger: memoryLogger().logger });
      await test({ prefix, subjects, js: nc.jetstream(), transport });
    } finally {
      await jsm.streams.delete(subjects.stream);
      await nc.drain();
    }
  };

  it('reads the changes after a revision in order, and none past the last', async () => {
    await withStream(async ({ prefix, subjects, js, transport }) => {
      const changes: PolicyChange[] = [
        { revision: 1, type: 'deploy', policy: { id: 'urn:policy:acme:a', xml: '<a/>' } },
        { revision: 2, type: 'revoke', policyId: 'urn:policy:acme:a' },
        { revision: 3, type: 'resync' },
        { revision: 4, type: 'unregister', componentId: 'urn:component:acme:pip:x' },
        { revision: 5, type: 'deploy', policy: { id: 'urn:timer:acme:t', xml: '<timer/>' } },
      ];
      for (const change of changes) await js.publish(subjects.changes, JSON.stringify(change), { msgID: `${prefix}:${change.revision}` });
      expect(await transport.replayChanges(0)).toEqual(changes);
      expect(await transport.replayChanges(2)).toEqual(changes.slice(2));
      expect(await transport.replayChanges(4)).toEqual(changes.slice(4));
      expect(await transport.replayChanges(5)).toEqual([]);
      expect(await transport.replayChanges(9)).toEqual([]);
    });
  });

  it('finds the changes after a revision in a stream that does not start at revision 1 and holds repeats', async () => {
    await withStream(async ({ subjects, js, transport }) => {
      const change = (revision: number): PolicyChange => ({ revision, type: 'revoke', policyId: `urn:policy:acme:p${revision}` });
      // The stream was created when pap stood at revision 40; 43 was sent twice (a pap died before marking it, and
      // the next one sent it again after the duplicate window), and one message is not a change at all.
      for (const revision of [41, 42, 43, 43, 44]) await js.publish(subjects.changes, JSON.stringify(change(revision)));
      await js.publish(subjects.changes, 'not a change');
      for (const revision of [45, 46]) await js.publish(subjects.changes, JSON.stringify(change(revision)));
      const revisions = async (after: number) => (await transport.replayChanges(after)).map((found) => found.revision);
      expect(await revisions(10)).toEqual([41, 42, 43, 43, 44, 45, 46]);
      expect(await revisions(42)).toEqual([43, 43, 44, 45, 46]);
      expect(await revisions(43)).toEqual([44, 45, 46]);
      expect(await revisions(45)).toEqual([46]);
      expect(await revisions(46)).toEqual([]);
    });
  });

  it('reads a long run of missed changes in one go, at most MAX_REPLAY of them', async () => {
    await withStream(async ({ subjects, js, transport }) => {
      const total = MAX_REPLAY + 200;
      const acks = [];
      for (let revision = 1; revision <= total; revision++) {
        acks.push(js.publish(subjects.changes, JSON.stringify({ revision, type: 'revoke', policyId: `urn:policy:acme:p${revision}` })));
      }
      await Promise.all(acks);
      const replayed = await transport.replayChanges(100);
      expect(replayed).toHaveLength(MAX_REPLAY);
      expect(replayed.map((change) => change.revision)).toEqual(Array.from({ length: MAX_REPLAY }, (_, index) => 101 + index));
      const rest = await transport.replayChanges(100 + MAX_REPLAY);
      expect(rest.map((change) => change.revision)).toEqual(Array.from({ length: 100 }, (_, index) => 101 + MAX_REPLAY + index));
    });
  });

  it('rejects when there is no stream', async () => {
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const transport = new NatsPolicyTransport(nc, { prefix: uniqueNatsPrefix(), requester: 'r', logger: memoryLogger().logger });
      await expect(transport.replayChanges(0)).rejects.toThrow(/stream not found/);
    } finally {
      await nc.drain();
    }
  });
});
