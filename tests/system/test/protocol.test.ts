import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createInbox } from 'nats';
import { ALL_SCOPES, LocalPolicyChannel, SnapshotAssembler, decodeSnapshot, policySubjects } from '@custos/contracts';
import { composePap, readPapConfig, type ComposedPap } from '@custos/pap-service';
import { composePdp, readPdpConfig, type ComposedPdp } from '@custos/pdp-service';
import {
  TestAuthority,
  call,
  createTestDatabase,
  startOwnNatsServer,
  uniqueNatsPrefix,
  waitFor,
  type OwnNatsServer,
} from '@custos/test-kit';
import { event, inhibitAll } from './policies';

/**
 * The pap → pdp protocol (architecture.md §2) with both ends real: pap's store, outbox pump and snapshot answer on
 * one side, the pdp's transport, change stream and active set on the other, composed in this process as their mains
 * compose them. The same cases run over both transports: NATS (core subject, JetStream stream, snapshot requests) and
 * the in-process channel of embedded mode.
 */
type Transport = 'nats' | 'in-process';

interface Ends {
  pap: ComposedPap;
  papUrl: string;
  /** Starts a pdp replica following pap (all replicas share one history database). */
  startPdp(): Promise<Replica>;
  nats: OwnNatsServer | undefined;
  token: string;
  /** Asks pap for a snapshot as a pdp does, over this transport; the answer's messages as they travelled. */
  requestSnapshot(): Promise<Uint8Array[]>;
  stop(): Promise<void>;
}

interface Replica {
  pdp: ComposedPdp;
  url: string;
  revision(): number | undefined;
  stop(): Promise<void>;
}

async function listenOn(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function startEnds(transport: Transport): Promise<Ends> {
  const authority = await new TestAuthority().start();
  const papDatabase = await createTestDatabase('custos_protocol_pap');
  const pdpDatabase = await createTestDatabase('custos_protocol_pdp');
  const nats = transport === 'nats' ? await startOwnNatsServer() : undefined;
  const channel = transport === 'in-process' ? new LocalPolicyChannel() : undefined;
  const prefix = uniqueNatsPrefix();
  const common = { AUTH_URL: authority.url, NATS_URL: nats?.url ?? 'nats://127.0.0.1:1', NATS_PREFIX: prefix, LOG_LEVEL: 'silent' };
  const pap = composePap(readPapConfig({ ...common, DATABASE_URL: papDatabase.url }), channel ? { policyChannel: channel } : {});
  await pap.start();
  const papServer = createServer(pap.app);
  const papUrl = await listenOn(papServer);
  const replicas: Replica[] = [];
  let count = 0;
  return {
    pap,
    papUrl,
    nats,
    token: authority.mint({ scopes: ALL_SCOPES, solutions: ['acme'] }),
    requestSnapshot: async () => {
      if (channel) return channel.requestSnapshot({ requester: 'protocol-test' });
      const nc = await connect({ servers: nats?.url });
      try {
        const messages: Uint8Array[] = [];
        // Read as a pdp reads them: the answer is complete when the reader says so.
        const reader = new SnapshotAssembler();
        let complete = false;
        const inbox = createInbox();
        nc.subscribe(inbox, {
          callback: (_error, msg) => {
            messages.push(msg.data);
            complete = reader.addMessage(msg.data);
          },
        });
        await nc.flush();
        nc.publish(policySubjects(prefix).snapshot, JSON.stringify({ requester: 'protocol-test' }), { reply: inbox });
        await waitFor(() => complete, { what: 'the whole snapshot answer' });
        return messages;
      } finally {
        await nc.close();
      }
    },
    startPdp: async () => {
      count++;
      const config = readPdpConfig({ ...common, DATABASE_URL: pdpDatabase.url, PDP_REPLICA_ID: `replica-${count}` });
      const pdp = await composePdp(config, {
        snapshotBackoff: { initialMs: 20, maxMs: 200 },
        startRetention: false,
        pxpDrainMs: 100,
        ...(channel ? { policyChannel: channel } : {}),
      });
      const server = await pdp.listen(0, '127.0.0.1');
      const replica: Replica = {
        pdp,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        revision: () => pdp.follower.active?.revision,
        stop: async () => {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          for (const close of pdp.closers) await close();
        },
      };
      replicas.push(replica);
      return replica;
    },
    stop: async () => {
      for (const replica of replicas) await replica.stop();
      papServer.closeAllConnections();
      await new Promise<void>((resolve) => papServer.close(() => resolve()));
      await pap.stop();
      await nats?.destroy();
      await pdpDatabase.drop();
      await papDatabase.drop();
      await authority.stop();
    },
  };
}

const policyId = (name: string) => `urn:policy:acme:${name}`;

/** Adds and deploys a policy inhibiting `action`; the deploy's revision. */
async function deploy(ends: Ends, name: string, action: string): Promise<number> {
  const added = await call('POST', `${ends.papUrl}/ws/policy`, { token: ends.token, xml: inhibitAll('acme', name, action) });
  expect(added.status).toBe(201);
  const deployed = await call('POST', `${ends.papUrl}/ws/policy/${policyId(name)}/deploy`, { token: ends.token });
  expect(deployed.status).toBe(200);
  return Number(deployed.headers.get('policy-revision'));
}

async function revoke(ends: Ends, name: string): Promise<number> {
  const revoked = await call('POST', `${ends.papUrl}/ws/policy/${policyId(name)}/revoke`, { token: ends.token });
  expect(revoked.body).toBe(true);
  return Number(revoked.headers.get('policy-revision'));
}

/** The replica's decision on `action`, and the revision it decided at. */
async function decide(ends: Ends, replica: Replica, action: string, minRevision?: number): Promise<{ allowed: boolean; revision: number }> {
  const answer = await call('POST', `${replica.url}/event`, {
    token: ends.token,
    json: event('acme', action),
    headers: minRevision === undefined ? {} : { 'Min-Policy-Revision': String(minRevision) },
  });
  expect(answer.status).toBe(200);
  return { allowed: (answer.body as { eventAllowed: boolean }).eventAllowed, revision: Number(answer.headers.get('policy-revision')) };
}

/** The replica's checks that pap answered as unchanged (no documents sent). */
async function unchangedChecks(replica: Replica): Promise<number> {
  const metric = (await replica.pdp.metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'resyncs_unchanged_total');
  return ((metric?.values ?? []) as Array<{ value: number }>).reduce((sum, value) => sum + value.value, 0);
}

const reached = (replica: Replica, revision: number) => waitFor(() => (replica.revision() ?? -1) >= revision, { what: `revision ${revision}` });

describe.each<Transport>(['nats', 'in-process'])('the pap → pdp protocol over %s', (transport) => {
  let ends: Ends;
  let first: Replica;

  beforeAll(async () => {
    ends = await startEnds(transport);
  }, 60_000);

  afterAll(async () => {
    await ends?.stop();
  }, 60_000);

  it('gives a replica that starts after deploys the deployed set in its first snapshot', async () => {
    const revision = await deploy(ends, 'no-export', 'export');
    first = await ends.startPdp();
    await reached(first, revision);
    expect(first.revision()).toBe(revision);
    expect(await decide(ends, first, 'export')).toEqual({ allowed: false, revision });
    expect((await decide(ends, first, 'read')).allowed).toBe(true);
  });

  it('applies each later change in revision order, and a Min-Policy-Revision request waits for its revision', async () => {
    const printing = await deploy(ends, 'no-print', 'print');
    // Asked at once: the answer waits until the replica has the deploy, however it travels.
    expect(await decide(ends, first, 'print', printing)).toEqual({ allowed: false, revision: printing });
    const revoked = await revoke(ends, 'no-export');
    expect(revoked).toBe(printing + 1);
    expect(await decide(ends, first, 'export', revoked)).toEqual({ allowed: true, revision: revoked });
    expect((await decide(ends, first, 'print')).allowed).toBe(false);
  });

  it('brings a second replica to the same set, and a snapshot on request keeps a replica where it is', async () => {
    const second = await ends.startPdp();
    const current = first.revision() ?? -1;
    await reached(second, current);
    expect(second.pdp.follower.status()).toMatchObject({ revision: current, policies: first.pdp.follower.status().policies });
    const checks = await unchangedChecks(first);
    first.pdp.follower.resync('periodic');
    await first.pdp.follower.idle();
    expect(first.revision()).toBe(current);
    // Asked with the revision it holds, pap answered in one message that nothing changed (issue 26).
    expect(await unchangedChecks(first)).toBe(checks + 1);
    const next = await deploy(ends, 'no-share', 'share');
    await Promise.all([reached(first, next), reached(second, next)]);
    expect([(await decide(ends, first, 'share')).allowed, (await decide(ends, second, 'share')).allowed]).toEqual([false, false]);
  });

  it('explains with a policy compiled from its tree, fetching its document from pap again on the first explanation', async () => {
    // Stopped with the others by `ends.stop()`.
    const replica = await ends.startPdp();
    await reached(replica, first.revision() ?? -1);
    const active = replica.pdp.follower.active;
    // The replica keeps no policy text (issue 26): the first explanation has to fetch the document.
    expect(active && replica.pdp.follower.explainable(active, 'urn:action:acme:share')).toBeInstanceOf(Promise);
    const explained = await call('POST', `${replica.url}/event/explain`, { token: ends.token, json: event('acme', 'share') });
    expect(explained.status).toBe(200);
    expect(explained.body).toMatchObject({ eventAllowed: false, explanation: [{ policyId: 'urn:policy:acme:no-share', outcome: 'inhibit' }] });
    expect(active && replica.pdp.follower.explainable(active, 'urn:action:acme:share')).toBeUndefined();
  });

  it('carries a policy larger than one message, in pieces of one snapshot format on either transport', async () => {
    // An XML comment takes the document past the 1 MB of a message (pap accepts 5 MB); the policy stays small.
    const xml = inhibitAll('acme', 'no-archive', 'archive').replace('<mechanism', `<!-- ${'padding '.repeat(160_000)} -->\n  <mechanism`);
    expect(Buffer.byteLength(xml)).toBeGreaterThan(1024 * 1024);
    const added = await call('POST', `${ends.papUrl}/ws/policy`, { token: ends.token, xml });
    expect(added.status).toBe(201);
    const deployed = await call('POST', `${ends.papUrl}/ws/policy/${policyId('no-archive')}/deploy`, { token: ends.token });
    const revision = Number(deployed.headers.get('policy-revision'));
    // A running replica has it (over NATS the change is too large for a message: a resync, then the snapshot)...
    expect(await decide(ends, first, 'archive', revision)).toEqual({ allowed: false, revision });
    // ... and so has one that starts after it, from its first snapshot.
    const late = await ends.startPdp();
    await reached(late, revision);
    expect(await decide(ends, late, 'archive')).toEqual({ allowed: false, revision });
    // What both transports carried: parts, the large document's part cut into pieces, each within a message.
    const messages = await ends.requestSnapshot();
    const read = messages.map((data) => JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>);
    expect(read.filter((message) => 'piece' in message).length).toBeGreaterThan(1);
    for (const data of messages) expect(data.length).toBeLessThanOrEqual(1024 * 1024);
    expect(decodeSnapshot(messages).policies.find((policy) => policy.id === policyId('no-archive'))?.xml).toBe(xml);
    expect(await revoke(ends, 'no-archive')).toBe(revision + 1);
  });

  it("carries a solution's settings as a change to running replicas and in the snapshot of a new one", async () => {
    const put = (settings: object) => call('PUT', `${ends.papUrl}/ws/solutions/acme/settings`, { token: ends.token, json: settings });
    const inhibiting = await put({ defaultDecision: 'inhibit' });
    expect(inhibiting.status).toBe(200);
    const revision = Number(inhibiting.headers.get('policy-revision'));
    // An action no policy mentions: decided by the default, now the solution's.
    expect(await decide(ends, first, 'unmatched', revision)).toEqual({ allowed: false, revision });
    const explained = await call('POST', `${first.url}/event/explain`, { token: ends.token, json: event('acme', 'unmatched') });
    expect(explained.body).toMatchObject({ eventAllowed: false, defaultDecision: { decision: 'inhibit', source: 'solution' } });
    const late = await ends.startPdp();
    await reached(late, revision);
    expect(await decide(ends, late, 'unmatched')).toEqual({ allowed: false, revision });

    const cleared = await put({});
    const back = Number(cleared.headers.get('policy-revision'));
    expect(back).toBe(revision + 1);
    expect(await decide(ends, late, 'unmatched', back)).toEqual({ allowed: true, revision: back });
    expect(await decide(ends, first, 'unmatched', back)).toEqual({ allowed: true, revision: back });
  });
});

describe('the pap → pdp protocol over nats, across a NATS restart', () => {
  let ends: Ends;

  beforeAll(async () => {
    ends = await startEnds('nats');
  }, 60_000);

  afterAll(async () => {
    await ends?.stop();
  }, 60_000);

  it('delivers the changes made while NATS was down, in order, once it is back', async () => {
    const replica = await ends.startPdp();
    const before = await deploy(ends, 'no-copy', 'copy');
    await reached(replica, before);
    const nats = ends.nats;
    if (nats === undefined) throw new Error('this case needs its own NATS server');
    await nats.stop();
    // Committed while nothing can carry them: they wait in pap's outbox.
    const during = [await deploy(ends, 'no-move', 'move'), await revoke(ends, 'no-copy')];
    expect(during).toEqual([before + 1, before + 2]);
    await nats.start();
    await reached(replica, before + 2);
    expect((await decide(ends, replica, 'move')).allowed).toBe(false);
    expect((await decide(ends, replica, 'copy')).allowed).toBe(true);
  }, 60_000);
});
