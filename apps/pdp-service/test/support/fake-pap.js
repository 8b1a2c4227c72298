"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FakePap = void 0;
const nats_1 = require("nats");
const contracts_1 = require("@custos/contracts");
const test_kit_1 = require("@custos/test-kit");
const encoder = new TextEncoder();
const decoder = new TextDecoder();
/**
 * Plays pap's side of the propagation contract on real NATS: answers snapshot requests with
 * chunked replies and publishes PolicyChange messages on the changes subject.
 */
class FakePap {
    prefix;
    chunkSize;
    revision = 0;
    /** Deployed policies and timers (`urn:timer:` ids), by id. */
    policies = new Map();
    /** Registered PIP and PXP components, by id. */
    components = new Map();
    requests = [];
    /** Chunks sent per snapshot answer, most recent last. */
    chunkCounts = [];
    misbehave = [];
    nc;
    constructor(prefix, chunkSize) {
        this.prefix = prefix;
        this.chunkSize = chunkSize;
    }
    static async start(prefix, { chunkSize = 64, servers = test_kit_1.TEST_NATS_URL } = {}) {
        const pap = new FakePap(prefix, chunkSize);
        const nc = await (0, nats_1.connect)({ servers, name: 'fake pap', maxReconnectAttempts: -1, reconnectTimeWait: 50 });
        pap.nc = nc;
        nc.subscribe((0, contracts_1.policySubjects)(prefix).snapshot, {
            callback: (_error, message) => {
                pap.requests.push(JSON.parse(decoder.decode(message.data)));
                if (message.reply)
                    pap.answer(message.reply);
            },
        });
        await nc.flush();
        return pap;
    }
    snapshot() {
        const snapshot = { revision: this.revision, policies: [...this.policies].map(([id, xml]) => ({ id, xml })) };
        if (this.components.size > 0)
            snapshot.components = [...this.components.values()];
        return snapshot;
    }
    answer(reply) {
        const mode = this.misbehave.shift();
        if (mode === 'silent')
            return;
        const bytes = Buffer.from(JSON.stringify(this.snapshot()), 'utf8');
        const chunks = [];
        for (let offset = 0, index = 0; offset < bytes.length; offset += this.chunkSize, index++) {
            chunks.push({
                index,
                last: offset + this.chunkSize >= bytes.length,
                data: bytes.subarray(offset, offset + this.chunkSize).toString('base64'),
            });
        }
        if (mode === 'out-of-order')
            [chunks[0], chunks[1]] = [chunks[1], chunks[0]];
        if (mode === 'missing-chunk')
            chunks.splice(1, 1);
        this.chunkCounts.push(chunks.length);
        for (const chunk of chunks)
            this.nc.publish(reply, encoder.encode(JSON.stringify(chunk)));
    }
    /** Deploys (or replaces) a policy at the next revision and announces it; returns the revision. */
    deploy(id, xml, { announce = true } = {}) {
        this.revision++;
        this.policies.set(id, xml);
        if (announce)
            this.publish({ revision: this.revision, type: 'deploy', policy: { id, xml } });
        return this.revision;
    }
    revoke(id, { announce = true } = {}) {
        this.revision++;
        this.policies.delete(id);
        if (announce)
            this.publish({ revision: this.revision, type: 'revoke', policyId: id });
        return this.revision;
    }
    /** Registers (or replaces) a PIP/PXP component at the next revision, as pap does. */
    register(component, { announce = true } = {}) {
        this.revision++;
        this.components.set(component.id.identifier, component);
        if (announce)
            this.publish({ revision: this.revision, type: 'component', component });
        return this.revision;
    }
    unregister(componentId) {
        this.revision++;
        this.components.delete(componentId);
        this.publish({ revision: this.revision, type: 'unregister', componentId });
        return this.revision;
    }
    /** Announces the next revision as `resync` (what pap does for a policy too large for a message). */
    deployWithResync(id, xml) {
        this.revision++;
        this.policies.set(id, xml);
        this.publish({ revision: this.revision, type: 'resync' });
        return this.revision;
    }
    publish(change) {
        const text = typeof change === 'string' ? change : JSON.stringify(change);
        this.nc.publish((0, contracts_1.policySubjects)(this.prefix).changes, encoder.encode(text));
    }
    async flush() {
        await this.nc.flush();
    }
    async stop() {
        await this.nc?.drain();
    }
}
exports.FakePap = FakePap;
//# sourceMappingURL=fake-pap.js.map