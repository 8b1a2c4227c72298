import {
  SNAPSHOT_PARTS_FORMAT,
  SnapshotAssembler,
  SnapshotError,
  encodeSnapshotAnswer,
  encodeSnapshotParts,
  encodeSnapshotUnchanged,
  isSnapshotUnchanged,
  type Component,
  type StoredDocument,
  type PolicySnapshot,
} from '@custos/contracts';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const json = (bytes: Uint8Array) => JSON.parse(text(bytes)) as Record<string, unknown>;

/** Reads messages as a pdp does: each message's JSON into one assembler. */
function read(messages: readonly Uint8Array[]): PolicySnapshot {
  const assembler = new SnapshotAssembler();
  const done = messages.map((message) => assembler.add(json(message)));
  expect(done.slice(0, -1).every((last) => !last)).toBe(true);
  expect(done.at(-1)).toBe(true);
  return assembler.result();
}

const tree = { version: 1, policy: { id: 'x', mechanisms: [{ event: 'urn:action:acme:ä', branches: [] }] } };
const policy = (n: number) => ({ id: `urn:policy:acme:p${n}`, xml: `<policy id="p${n}">äöü € 𝄞 ${'x'.repeat(n % 7)}</policy>`, tree, deployedAt: n + 1 });
const pip: Component = { id: { componentType: 'PIP', identifier: 'urn:pip:acme:p' }, urls: ['http://127.0.0.1:1/'], componentInterfaces: [] };
const snapshot: PolicySnapshot = { revision: 40, policies: Array.from({ length: 30 }, (_, n) => policy(n)), components: [pip] };

describe('encodeSnapshotParts', () => {
  it('packs whole documents into parts within the byte limit, read back exactly', () => {
    const maxBytes = 900;
    const parts = encodeSnapshotParts(snapshot, maxBytes);
    expect(parts.length).toBeGreaterThan(5);
    let documents = 0;
    parts.forEach((part, index) => {
      expect(part.length).toBeLessThanOrEqual(maxBytes);
      const message = json(part);
      expect(message).toMatchObject({ format: SNAPSHOT_PARTS_FORMAT, index, last: index === parts.length - 1, revision: 40 });
      expect('components' in message).toBe(index === 0);
      documents += (message.policies as unknown[]).length;
    });
    expect(documents).toBe(30);
    expect(read(parts)).toEqual(snapshot);
  });

  it('sends an empty snapshot as one part, and one without components without them', () => {
    const parts = encodeSnapshotParts({ revision: 0, policies: [] }, 1000);
    expect(parts.map(json)).toEqual([{ format: 2, index: 0, revision: 0, policies: [], last: true }]);
    expect(read(parts)).toEqual({ revision: 0, policies: [] });
  });

  it('sends a document too large for a part in a part of its own, cut into pieces, its tree kept; components too', () => {
    const large = { id: 'urn:policy:acme:large', xml: '<policy/>', tree: { version: 1, policy: { pad: 'y'.repeat(2000) } } };
    const parts = encodeSnapshotParts({ revision: 3, policies: [policy(1), large, policy(2)] }, 800);
    expect(parts.every((part) => part.length <= 800)).toBe(true);
    const messages = parts.map(json);
    // Part 0 and part 2 whole around part 1, whose ~2 KB take at least three pieces of 800 bytes.
    expect(messages.length).toBeGreaterThanOrEqual(5);
    expect(messages.map((message) => [message.index, 'piece' in message])).toEqual(
      messages.map((_, n) => (n === 0 ? [0, false] : n === messages.length - 1 ? [2, false] : [1, true])),
    );
    expect(read(parts).policies).toEqual([policy(1), large, policy(2)]);
    const many: PolicySnapshot = { revision: 3, policies: [policy(1)], components: [pip, pip, pip] };
    const head = encodeSnapshotParts(many, 120);
    expect(head.every((part) => part.length <= 120)).toBe(true);
    expect(read(head)).toEqual(many);
  });
});

describe('encodeSnapshotAnswer', () => {
  it('answers in parts within the payload less its headroom, a document larger than that in pieces', () => {
    const parts = encodeSnapshotAnswer(snapshot, 1024 * 1024);
    expect(parts).toHaveLength(1);
    expect(json(parts[0]!).format).toBe(2);
    expect(read(parts)).toEqual(snapshot);

    const huge: PolicySnapshot = { revision: 2, policies: [{ id: 'urn:policy:acme:huge', xml: 'z'.repeat(9000) }] };
    const pieces = encodeSnapshotAnswer(huge, 4096 + 5000);
    expect(pieces.length).toBeGreaterThan(1);
    for (const message of pieces) {
      expect(message.length).toBeLessThanOrEqual(5000);
      expect(json(message)).toMatchObject({ format: 2, index: 0, data: expect.any(String) });
    }
    expect(read(pieces)).toEqual(huge);
  });
});

describe('SnapshotAssembler with parts', () => {
  const parts = () => encodeSnapshotParts(snapshot, 900).map(json);

  it('fails on a part out of order, missing, repeated or of another revision', () => {
    const [first, second, third] = parts();
    const skipped = new SnapshotAssembler();
    skipped.add(first);
    expect(() => skipped.add(third)).toThrow(new SnapshotError('snapshot part 2 arrived where part 1 was expected'));
    const repeated = new SnapshotAssembler();
    repeated.add(first);
    expect(() => repeated.add(first)).toThrow(/part 0 arrived where part 1 was expected/);
    const other = new SnapshotAssembler();
    other.add(first);
    expect(() => other.add({ ...second, revision: 41 })).toThrow('snapshot part 1 is of revision 41, the parts before of 40');
  });

  it('fails on malformed parts, other messages among parts, components after part 0 and anything after the last part', () => {
    const [first, second] = parts();
    expect(() => new SnapshotAssembler().add({ format: 2, index: 0, last: true, policies: [] })).toThrow(/must hold `index`, `last`, `revision` and `policies`/);
    expect(() => new SnapshotAssembler().add({ format: 2, index: 0, last: true, revision: 1, policies: [{ id: 'a' }] })).toThrow(
      /snapshot part 0, policy 0 must hold `id` and `xml`/,
    );
    expect(() => new SnapshotAssembler().add({ format: 2, index: 0, last: true, revision: 1, policies: [], components: [{ id: 'x' }] })).toThrow(
      'snapshot component 0 must be a pip or pxp component',
    );
    const mixed = new SnapshotAssembler();
    mixed.add(first);
    expect(() => mixed.add({ index: 1, last: true, data: 'eA==' })).toThrow(/must be a part or a piece of one/);
    const late = new SnapshotAssembler();
    late.add(first);
    expect(() => late.add({ ...second, components: [pip] })).toThrow('snapshot part 1 holds `components`, which only part 0 may');
    const done = new SnapshotAssembler();
    done.add({ ...first, last: true });
    expect(() => done.add(second)).toThrow('a snapshot part arrived after the last one');
  });

  it('hands the documents of each part to a sink as it is read, leaving only the revision and components in the result', () => {
    const handed: string[][] = [];
    const assembler = new SnapshotAssembler(undefined, (policies) => handed.push(policies.map((p) => p.id)));
    const all = parts();
    all.forEach((part, index) => {
      expect(assembler.add(part)).toBe(index === all.length - 1);
      // Part by part, not at the end.
      expect(handed).toHaveLength(index + 1);
    });
    expect(handed.flat()).toEqual(snapshot.policies.map((p) => p.id));
    expect(assembler.result()).toEqual({ revision: 40, policies: [], components: [pip] });
  });

  it('refuses a part a sink would take when it is malformed, before handing over any of its documents', () => {
    const handed: unknown[] = [];
    const assembler = new SnapshotAssembler(undefined, (policies) => handed.push(...policies));
    expect(() => assembler.add({ format: 2, index: 0, last: false, revision: 1, policies: [{ id: 'a', xml: '<x/>' }, { id: 'b' }] })).toThrow(
      /snapshot part 0, policy 1 must hold `id` and `xml`/,
    );
    expect(handed).toEqual([]);
  });

  it('hands a document that came in pieces to the sink once its last piece is in', () => {
    const handed: string[][] = [];
    const assembler = new SnapshotAssembler(undefined, (policies) => handed.push(policies.map((p) => p.id)));
    const large = { id: 'urn:policy:acme:large', xml: `<policy>${'ä'.repeat(1500)}</policy>` };
    const messages = encodeSnapshotParts({ revision: 5, policies: [policy(1), large] }, 900).map(json);
    const pieces = messages.filter((message) => 'piece' in message);
    expect(pieces.length).toBeGreaterThan(2);
    messages.forEach((message) => {
      assembler.add(message);
      // Nothing of the large document before its last piece.
      expect(handed.flat().includes(large.id)).toBe(message === messages.at(-1));
    });
    expect(handed).toEqual([[policy(1).id], [large.id]]);
    expect(assembler.result()).toEqual({ revision: 5, policies: [] });
  });

  it('refuses the result before the last part', () => {
    const assembler = new SnapshotAssembler();
    assembler.add(parts()[0]);
    expect(() => assembler.result()).toThrow(new SnapshotError('the snapshot is incomplete'));
  });
});

describe('documents whose tree is stored JSON text (issue 26)', () => {
  // With white space between tokens, as PostgreSQL writes jsonb: the receiver must not see any difference.
  const stored = (n: number): StoredDocument => {
    const { tree: value, ...rest } = policy(n);
    return { ...rest, treeJson: JSON.stringify(value, null, 1) };
  };
  const ascii = (n: number): StoredDocument => ({ id: `urn:policy:acme:a${n}`, xml: `<policy id="a${n}"/>`, treeJson: JSON.stringify(tree) });

  it('are sent as the documents with that tree, in parts and in pieces alike', () => {
    const outgoing = { revision: 40, policies: Array.from({ length: 30 }, (_, n) => stored(n)), components: [pip] };
    const parts = encodeSnapshotParts(outgoing, 900);
    expect(parts.every((part) => part.length <= 900)).toBe(true);
    expect(read(parts)).toEqual(snapshot);
    const pieces = encodeSnapshotAnswer(outgoing, 4096 + 200);
    expect(pieces.every((message) => message.length <= 200)).toBe(true);
    expect(pieces.map(json).filter((message) => 'piece' in message).length).toBeGreaterThan(30);
    expect(read(pieces)).toEqual(snapshot);
  });

  it('keep the byte limit for ASCII-only documents too, and a tree too large for a part travels in pieces', () => {
    const documents = Array.from({ length: 40 }, (_, n) => ascii(n));
    const parts = encodeSnapshotParts({ revision: 1, policies: documents }, 700);
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.every((part) => part.length <= 700)).toBe(true);
    expect(read(parts).policies).toHaveLength(40);
    const large: StoredDocument = { id: 'urn:policy:acme:large', xml: '<policy/>', treeJson: JSON.stringify({ pad: 'y'.repeat(2000) }), deployedAt: 7 };
    expect(read(encodeSnapshotParts({ revision: 3, policies: [large] }, 800)).policies).toEqual([
      { id: 'urn:policy:acme:large', xml: '<policy/>', tree: { pad: 'y'.repeat(2000) }, deployedAt: 7 },
    ]);
  });
});

describe('an unchanged answer (format 3)', () => {
  it('is read as that, never as a snapshot, and nothing may follow it', () => {
    const assembler = new SnapshotAssembler();
    expect(assembler.addMessage(encodeSnapshotUnchanged(12))).toBe(true);
    const answer = assembler.answer();
    expect(answer).toEqual({ format: 3, revision: 12 });
    expect(isSnapshotUnchanged(answer)).toBe(true);
    expect(() => assembler.result()).toThrow(SnapshotError);
    expect(() => assembler.addMessage(encodeSnapshotUnchanged(12))).toThrow(/after an unchanged answer/);
    expect(isSnapshotUnchanged({ revision: 12, policies: [] })).toBe(false);
  });

  it('is refused among parts, and one without a revision is no unchanged answer', () => {
    const among = new SnapshotAssembler();
    among.add(json(encodeSnapshotParts(snapshot, 900)[0]!));
    expect(() => among.addMessage(encodeSnapshotUnchanged(40))).toThrow(SnapshotError);
    expect(() => new SnapshotAssembler().add({ format: 3 })).toThrow(SnapshotError);
    expect(() => new SnapshotAssembler().add({ format: 3, revision: -1 })).toThrow(SnapshotError);
  });
});
