import { MAX_SNAPSHOT_BYTES, SnapshotAssembler, SnapshotError, parseChange, parseSnapshot } from '@custos/contracts';

const chunksOf = (text: string, size: number) => {
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
    const assembler = new SnapshotAssembler();
    const chunks = chunksOf(text, 7);
    expect(chunks.length).toBeGreaterThan(5);
    const results = chunks.map((chunk) => assembler.add(chunk));
    expect(results.slice(0, -1).every((done) => !done)).toBe(true);
    expect(results.at(-1)).toBe(true);
    expect(assembler.result()).toEqual(snapshot);
  });

  it('reads messages as they travel (their bytes), chunks cut through characters included, and refuses one that is not JSON', () => {
    const assembler = new SnapshotAssembler();
    const messages = chunksOf(text, 7).map((chunk) => new TextEncoder().encode(JSON.stringify(chunk)));
    const results = messages.map((message) => assembler.addMessage(message));
    expect(results.at(-1)).toBe(true);
    expect(assembler.result()).toEqual(snapshot);
    expect(() => new SnapshotAssembler().addMessage(new TextEncoder().encode('{"index":'))).toThrow(new SnapshotError('a snapshot chunk is not JSON'));
  });

  it('takes a snapshot in a single chunk', () => {
    const assembler = new SnapshotAssembler();
    expect(assembler.add({ index: 0, last: true, data: Buffer.from(text).toString('base64') })).toBe(true);
    expect(assembler.result().revision).toBe(12);
  });

  it('fails on a chunk out of order or missing', () => {
    const chunks = chunksOf(text, 10);
    const skipped = new SnapshotAssembler();
    skipped.add(chunks[0]);
    expect(() => skipped.add(chunks[2])).toThrow(new SnapshotError('snapshot chunk 2 arrived where chunk 1 was expected'));
    const repeated = new SnapshotAssembler();
    repeated.add(chunks[0]);
    expect(() => repeated.add(chunks[0])).toThrow(SnapshotError);
    const lateStart = new SnapshotAssembler();
    expect(() => lateStart.add(chunks[1])).toThrow(/arrived where chunk 0 was expected/);
  });

  it('fails on malformed chunks and on chunks after the last', () => {
    expect(() => new SnapshotAssembler().add({ index: 0, data: 'eA==' })).toThrow(/must hold `index`, `last` and `data`/);
    expect(() => new SnapshotAssembler().add('chunk')).toThrow(SnapshotError);
    const done = new SnapshotAssembler();
    done.add({ index: 0, last: true, data: Buffer.from(text).toString('base64') });
    expect(() => done.add({ index: 1, last: true, data: '' })).toThrow(/after the last one/);
  });

  it('refuses the result before the last chunk and a snapshot that is not one', () => {
    const partial = new SnapshotAssembler();
    partial.add({ index: 0, last: false, data: 'eA==' });
    expect(() => partial.result()).toThrow(/incomplete/);
    const garbage = new SnapshotAssembler();
    garbage.add({ index: 0, last: true, data: Buffer.from('{"revision":').toString('base64') });
    expect(() => garbage.result()).toThrow(/not valid JSON/);
  });

  it('refuses a snapshot larger than the limit', () => {
    expect(MAX_SNAPSHOT_BYTES).toBe(512 * 1024 * 1024);
    const assembler = new SnapshotAssembler(10);
    assembler.add({ index: 0, last: false, data: Buffer.alloc(10).toString('base64') });
    expect(() => assembler.add({ index: 1, last: true, data: 'eA==' })).toThrow('the snapshot exceeds 10 bytes');
  });
});

describe('parseSnapshot', () => {
  it('checks the shape', () => {
    expect(parseSnapshot('{"revision":0,"policies":[]}')).toEqual({ revision: 0, policies: [] });
    expect(() => parseSnapshot('{"revision":-1,"policies":[]}')).toThrow(SnapshotError);
    expect(() => parseSnapshot('{"revision":1}')).toThrow(/`revision` and `policies`/);
    expect(() => parseSnapshot('{"revision":1,"policies":[{"id":"x"}]}')).toThrow(/snapshot policy 0/);
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
    const snapshot = parseSnapshot(
      JSON.stringify({ revision: 3, policies: [{ id: 'urn:policy:acme:p', xml: '<p/>', tree }, { id: 'urn:policy:acme:q', xml: '<q/>' }] }),
    );
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
      expect(() => parseSnapshot(`{"revision":1,"policies":[{"id":"a","xml":"<p/>","tree":${damaged}}]}`)).toThrow(/snapshot policy 0 .*a `tree` only as an object/);
    }
  });
});
