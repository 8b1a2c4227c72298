"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const messages_1 = require("../src/policy-set/messages");
const chunksOf = (text, size) => {
    const bytes = Buffer.from(text, 'utf8');
    const chunks = [];
    for (let offset = 0, index = 0; offset < bytes.length || index === 0; offset += size, index++) {
        const part = bytes.subarray(offset, offset + size);
        chunks.push({ index, last: offset + size >= bytes.length, data: part.toString('base64') });
    }
    return chunks;
};
describe('SnapshotAssembler', () => {
    const snapshot = { revision: 12, policies: [{ id: 'urn:policy:acme:ü', xml: '<policy>äöü € 𝄞</policy>' }] };
    const text = JSON.stringify(snapshot);
    it('joins byte chunks that cut through characters', () => {
        const assembler = new messages_1.SnapshotAssembler();
        const chunks = chunksOf(text, 7);
        expect(chunks.length).toBeGreaterThan(5);
        const results = chunks.map((chunk) => assembler.add(chunk));
        expect(results.slice(0, -1).every((done) => !done)).toBe(true);
        expect(results.at(-1)).toBe(true);
        expect(assembler.result()).toEqual(snapshot);
    });
    it('takes a snapshot in a single chunk', () => {
        const assembler = new messages_1.SnapshotAssembler();
        expect(assembler.add({ index: 0, last: true, data: Buffer.from(text).toString('base64') })).toBe(true);
        expect(assembler.result().revision).toBe(12);
    });
    it('fails on a chunk out of order or missing', () => {
        const chunks = chunksOf(text, 10);
        const skipped = new messages_1.SnapshotAssembler();
        skipped.add(chunks[0]);
        expect(() => skipped.add(chunks[2])).toThrow(new messages_1.SnapshotError('snapshot chunk 2 arrived where chunk 1 was expected'));
        const repeated = new messages_1.SnapshotAssembler();
        repeated.add(chunks[0]);
        expect(() => repeated.add(chunks[0])).toThrow(messages_1.SnapshotError);
        const lateStart = new messages_1.SnapshotAssembler();
        expect(() => lateStart.add(chunks[1])).toThrow(/arrived where chunk 0 was expected/);
    });
    it('fails on malformed chunks and on chunks after the last', () => {
        expect(() => new messages_1.SnapshotAssembler().add({ index: 0, data: 'eA==' })).toThrow(/must hold `index`, `last` and `data`/);
        expect(() => new messages_1.SnapshotAssembler().add('chunk')).toThrow(messages_1.SnapshotError);
        const done = new messages_1.SnapshotAssembler();
        done.add({ index: 0, last: true, data: Buffer.from(text).toString('base64') });
        expect(() => done.add({ index: 1, last: true, data: '' })).toThrow(/after the last one/);
    });
    it('refuses the result before the last chunk and a snapshot that is not one', () => {
        const partial = new messages_1.SnapshotAssembler();
        partial.add({ index: 0, last: false, data: 'eA==' });
        expect(() => partial.result()).toThrow(/incomplete/);
        const garbage = new messages_1.SnapshotAssembler();
        garbage.add({ index: 0, last: true, data: Buffer.from('{"revision":').toString('base64') });
        expect(() => garbage.result()).toThrow(/not valid JSON/);
    });
    it('refuses a snapshot larger than the limit', () => {
        expect(messages_1.MAX_SNAPSHOT_BYTES).toBe(512 * 1024 * 1024);
        const assembler = new messages_1.SnapshotAssembler(10);
        assembler.add({ index: 0, last: false, data: Buffer.alloc(10).toString('base64') });
        expect(() => assembler.add({ index: 1, last: true, data: 'eA==' })).toThrow('the snapshot exceeds 10 bytes');
    });
});
describe('parseSnapshot', () => {
    it('checks the shape', () => {
        expect((0, messages_1.parseSnapshot)('{"revision":0,"policies":[]}')).toEqual({ revision: 0, policies: [] });
        expect(() => (0, messages_1.parseSnapshot)('{"revision":-1,"policies":[]}')).toThrow(messages_1.SnapshotError);
        expect(() => (0, messages_1.parseSnapshot)('{"revision":1}')).toThrow(/`revision` and `policies`/);
        expect(() => (0, messages_1.parseSnapshot)('{"revision":1,"policies":[{"id":"x"}]}')).toThrow(/snapshot policy 0/);
    });
});
describe('parseChange', () => {
    it('reads the three kinds of change', () => {
        expect((0, messages_1.parseChange)('{"revision":3,"type":"deploy","policy":{"id":"a","xml":"<p/>"}}')).toEqual({
            revision: 3,
            type: 'deploy',
            policy: { id: 'a', xml: '<p/>' },
        });
        expect((0, messages_1.parseChange)('{"revision":4,"type":"revoke","policyId":"a"}')).toEqual({ revision: 4, type: 'revoke', policyId: 'a' });
        expect((0, messages_1.parseChange)('{"revision":5,"type":"resync"}')).toEqual({ revision: 5, type: 'resync' });
    });
    it('says why a message is not a change', () => {
        expect((0, messages_1.parseChange)('nope')).toBe('the change message is not JSON');
        expect((0, messages_1.parseChange)('[]')).toBe('the change message is not an object');
        expect((0, messages_1.parseChange)('{"revision":0,"type":"resync"}')).toMatch(/no valid `revision`/);
        expect((0, messages_1.parseChange)('{"revision":1.5,"type":"resync"}')).toMatch(/no valid `revision`/);
        expect((0, messages_1.parseChange)('{"revision":2,"type":"deploy","policy":{"id":"a"}}')).toMatch(/`policy` must hold/);
        expect((0, messages_1.parseChange)('{"revision":2,"type":"revoke"}')).toMatch(/`policyId` must be a string/);
        expect((0, messages_1.parseChange)('{"revision":2,"type":"rename"}')).toBe('change 2: unknown type `rename`');
    });
});
//# sourceMappingURL=messages.test.js.map