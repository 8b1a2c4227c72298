"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const nats_1 = require("nats");
const test_kit_1 = require("@custos/test-kit");
const metrics_1 = require("../src/metrics");
const follower_1 = require("../src/policy-set/follower");
const messages_1 = require("../src/policy-set/messages");
const transport_1 = require("../src/policy-set/transport");
const fake_pap_1 = require("./support/fake-pap");
const logger_1 = require("./support/logger");
const policies_1 = require("./support/policies");
describe('NatsPolicyTransport', () => {
    it('fails a snapshot attempt at once when nothing listens for snapshot requests', async () => {
        const nc = await (0, nats_1.connect)({ servers: test_kit_1.TEST_NATS_URL });
        try {
            const transport = new transport_1.NatsPolicyTransport(nc, { prefix: (0, test_kit_1.uniqueNatsPrefix)(), requester: 'r', logger: (0, logger_1.memoryLogger)().logger, chunkTimeoutMs: 60_000 });
            await expect(transport.fetchSnapshot()).rejects.toThrow(new messages_1.SnapshotError('nobody answers snapshot requests'));
        }
        finally {
            await nc.drain();
        }
    });
    it('fails a snapshot attempt when no chunk arrives in time', async () => {
        const prefix = (0, test_kit_1.uniqueNatsPrefix)();
        const nc = await (0, nats_1.connect)({ servers: test_kit_1.TEST_NATS_URL });
        try {
            const transport = new transport_1.NatsPolicyTransport(nc, { prefix, requester: 'r', logger: (0, logger_1.memoryLogger)().logger, chunkTimeoutMs: 100 });
            const heard = [];
            nc.subscribe(transport.subjects.snapshot, { callback: (_e, m) => heard.push(m.subject) }); // a pap that never answers
            await nc.flush();
            await expect(transport.fetchSnapshot()).rejects.toThrow(new messages_1.SnapshotError('no snapshot chunk arrived within 100 ms'));
            expect(heard).toEqual([transport.subjects.snapshot]);
        }
        finally {
            await nc.drain();
        }
    });
    it('reassembles a snapshot of many chunks with multi-byte text', async () => {
        const prefix = (0, test_kit_1.uniqueNatsPrefix)();
        const pap = await fake_pap_1.FakePap.start(prefix, { chunkSize: 7 });
        const nc = await (0, nats_1.connect)({ servers: test_kit_1.TEST_NATS_URL });
        try {
            const xml = (0, policies_1.allowAll)('urn:policy:acme:ümlaut', 'urn:action:acme:x').replace('<if>', '<!-- äöü € 𝄞 --><if>');
            pap.policies.set('urn:policy:acme:ümlaut', xml);
            pap.revision = 9;
            const transport = new transport_1.NatsPolicyTransport(nc, { prefix, requester: 'replica-a', logger: (0, logger_1.memoryLogger)().logger });
            const snapshot = await transport.fetchSnapshot();
            expect(snapshot).toEqual({ revision: 9, policies: [{ id: 'urn:policy:acme:ümlaut', xml }] });
            expect(pap.chunkCounts[0]).toBeGreaterThan(50);
            expect(pap.requests).toEqual([{ requester: 'replica-a' }]);
        }
        finally {
            await nc.drain();
            await pap.stop();
        }
    });
});
describe('following across a NATS restart', () => {
    let nats;
    const stopServer = () => nats.stop();
    const startServer = () => nats.start();
    afterEach(async () => {
        await nats?.destroy();
        nats = undefined;
    });
    it('takes a snapshot after reconnecting, catching changes whose messages were lost', async () => {
        nats = await (0, test_kit_1.startOwnNatsServer)();
        const servers = nats.url;
        const prefix = (0, test_kit_1.uniqueNatsPrefix)();
        const pap = await fake_pap_1.FakePap.start(prefix, { servers });
        const nc = await (0, nats_1.connect)({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
        const log = (0, logger_1.memoryLogger)();
        const metrics = (0, metrics_1.createPdpMetrics)(false);
        const transport = new transport_1.NatsPolicyTransport(nc, { prefix, requester: 'r', logger: log.logger, chunkTimeoutMs: 200 });
        const follower = new follower_1.PolicySetFollower({ transport, logger: log.logger, metrics, resyncIntervalMs: 0, backoff: { initialMs: 20, maxMs: 100 } });
        try {
            pap.deploy('urn:policy:acme:a', (0, policies_1.allowAll)('urn:policy:acme:a', 'urn:action:acme:x'), { announce: false });
            await follower.start();
            await (0, test_kit_1.waitFor)(() => follower.active?.revision === 1, { what: 'the first snapshot' });
            expect(transport.connected).toBe(true);
            await stopServer();
            await (0, test_kit_1.waitFor)(() => !transport.connected, { what: 'the disconnect' });
            // Changes made while NATS is down never reach this replica as messages.
            pap.deploy('urn:policy:acme:b', (0, policies_1.inhibitAll)('urn:policy:acme:b', 'urn:action:acme:x'), { announce: false });
            expect(follower.active?.revision).toBe(1);
            await startServer();
            await (0, test_kit_1.waitFor)(() => transport.connected, { timeoutMs: 10_000, what: 'the reconnect' });
            await (0, test_kit_1.waitFor)(() => follower.active?.revision === 2, { timeoutMs: 10_000, what: 'the snapshot after the reconnect' });
            expect(follower.active?.set.has('urn:policy:acme:b')).toBe(true);
            const resyncs = (await metrics.registry.getSingleMetric('resyncs_total').get()).values;
            expect(resyncs.find((v) => v.labels.reason === 'reconnect')?.value).toBeGreaterThanOrEqual(1);
            expect(log.lines.some((l) => l.msg === 'nats reconnected')).toBe(true);
            // And changes flow again over the re-established subscription.
            const next = pap.revoke('urn:policy:acme:a');
            await (0, test_kit_1.waitFor)(() => follower.active?.revision === next, { what: 'a change after the reconnect' });
            expect(follower.active?.set.has('urn:policy:acme:a')).toBe(false);
        }
        finally {
            await follower.stop();
            await nc.close();
            await pap.stop().catch(() => undefined);
        }
    });
});
//# sourceMappingURL=transport.test.js.map