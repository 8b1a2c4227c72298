import { MAX_SNAPSHOT_BYTES, SnapshotAssembler, SnapshotError, encodeSnapshotParts, parseChange } from '@custos/contracts';

/** One whole part holding `policies` (parsed JSON), as a pdp reads it. */
const part = (policies: unknown[], revision = 1) => ({ format: 2, index: 0, last: true, revision, policies });

describe('SnapshotAssembler', () => {
  const snapshot = { revision: 12, policies: [{ id: 'urn:policy:acme:ü', xml: '<policy>äöü € 𝄞</policy>' }] };

  it('reads messages as they travel (their bytes), and refuses one that is not JSON', () => {
    const assembler = new SnapshotAssembler();
    const messages = encodeSnapshotParts(snapshot, 1000);
    expect(messages.map((message) => assembler.addMessage(message))).toEqual([true]);
    expect(assembler.result()).toEqual(snapshot);
    expect(() => new SnapshotAssembler().addMessage(new TextEncoder().encode('{"index":'))).toThrow(new SnapshotError('a snapshot message is not JSON'));
  });

  it('refuses a message that is neither a part nor a piece', () => {
    expect(() => new SnapshotAssembler().add({ index: 0, last: true, data: 'eA==' })).toThrow(/must be a part or a piece of one/);
    expect(() => new SnapshotAssembler().add('part')).toThrow(SnapshotError);
  });

  it('bounds a part joined from pieces', () => {
    expect(MAX_SNAPSHOT_BYTES).toBe(512 * 1024 * 1024);
  });
});

describe('a part', () => {
  it('checks the shape', () => {
    const read = (message: object) => {
      const assembler = new SnapshotAssembler();
      assembler.add(message);
      return assembler.result();
    };
    expect(read(part([], 0))).toEqual({ revision: 0, policies: [] });
    expect(() => read(part([], -1))).toThrow(SnapshotError);
    expect(() => read({ format: 2, index: 0, last: true, revision: 1 })).toThrow(/`index`, `last`, `revision` and `policies`/);
    expect(() => read(part([{ id: 'x' }]))).toThrow(/snapshot part 0, policy 0/);
  });
});

describe('parseChange', () => {
  it('reads the three kinds of change', () => {
    expect(parseChange('{"revision":3,"type":"deploy","policy":{"id":"a","xml":"<p/>"}}')).toEqual({
      revision: 3,
      type: 'deploy',
      policy: { id: 'a', xml: '<p/>' },
    });
    expect(parseChange('{"revision":4,"type":"revoke","policyId":"a"}')).toEqual({ revision: 4, type: 'revoke', policyId: 'a' });
    expect(parseChange('{"revision":5,"type":"resync"}')).toEqual({ revision: 5, type: 'resync' });
  });

  it('says why a message is not a change', () => {
    expect(parseChange('nope')).toBe('the change message is not JSON');
    expect(parseChange('[]')).toBe('the change message is not an object');
    expect(parseChange('{"revision":0,"type":"resync"}')).toMatch(/no valid `revision`/);
    expect(parseChange('{"revision":1.5,"type":"resync"}')).toMatch(/no valid `revision`/);
    expect(parseChange('{"revision":2,"type":"deploy","policy":{"id":"a"}}')).toMatch(/`policy` must hold/);
    expect(parseChange('{"revision":2,"type":"revoke"}')).toMatch(/`policyId` must be a string/);
    expect(parseChange('{"revision":2,"type":"rename"}')).toBe('change 2: unknown type `rename`');
  });
});

describe('the compiled tree beside the XML', () => {
  const tree = { version: 1, policy: { id: 'urn:policy:acme:p', mechanisms: [] } };

  it('travels in snapshots and deploy changes, and stays optional', () => {
    const assembler = new SnapshotAssembler();
    assembler.add(part([{ id: 'urn:policy:acme:p', xml: '<p/>', tree }, { id: 'urn:policy:acme:q', xml: '<q/>' }], 3));
    const snapshot = assembler.result();
    expect(snapshot.policies).toEqual([{ id: 'urn:policy:acme:p', xml: '<p/>', tree }, { id: 'urn:policy:acme:q', xml: '<q/>' }]);
    expect('tree' in snapshot.policies[1]!).toBe(false);
    expect(parseChange(JSON.stringify({ revision: 4, type: 'deploy', policy: { id: 'urn:policy:acme:p', xml: '<p/>', tree } }))).toEqual({
      revision: 4,
      type: 'deploy',
      policy: { id: 'urn:policy:acme:p', xml: '<p/>', tree },
    });
  });

  it('refuses a tree that is not an object', () => {
    for (const damaged of ['"tree"', '[]', 'null', '1']) {
      expect(parseChange(`{"revision":2,"type":"deploy","policy":{"id":"a","xml":"<p/>","tree":${damaged}}}`)).toMatch(/a `tree` only as an object/);
      const policies = [JSON.parse(`{"id":"a","xml":"<p/>","tree":${damaged}}`) as unknown];
      expect(() => new SnapshotAssembler().add(part(policies))).toThrow(/snapshot part 0, policy 0 .*a `tree` only as an object/);
    }
  });
});
