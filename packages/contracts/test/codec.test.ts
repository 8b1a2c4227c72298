import {
  PAYLOAD_HEADROOM_BYTES,
  SnapshotAssembler,
  SnapshotError,
  componentRuleErrors,
  decodeSnapshot,
  deployedDocument,
  documentKind,
  encodeChange,
  encodeSnapshotAnswer,
  encodeSnapshotParts,
  parseChange,
  propagatedComponent,
  type Component,
  type PolicyChange,
  type PolicySnapshot,
} from '@custos/contracts';
import { decodeBase64, encodeBase64 } from '../src/base64';

const json = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;

describe('base64', () => {
  it('agrees with Node for every length around the 3-byte groups and for every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (let length = 0; length <= 10; length++) {
      const bytes = all.subarray(250 - length, 250);
      expect(encodeBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(decodeBase64(Buffer.from(bytes).toString('base64'))).toEqual(bytes);
    }
    expect(encodeBase64(all)).toBe(Buffer.from(all).toString('base64'));
    expect(decodeBase64(Buffer.from(all).toString('base64'))).toEqual(all);
  });

  it('encodes inputs larger than one slice in one piece', () => {
    const bytes = Uint8Array.from({ length: 200_001 }, (_, i) => (i * 31) % 256);
    expect(encodeBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
  });

  it('refuses text that is not base64', () => {
    expect(decodeBase64('abc')).toBeUndefined();
    expect(decodeBase64('ab=c')).toBeUndefined();
    expect(decodeBase64('a===')).toBeUndefined();
    expect(decodeBase64('ab€c')).toBeUndefined();
    expect(decodeBase64('ab$c')).toBeUndefined();
    expect(decodeBase64('')).toEqual(new Uint8Array(0));
  });
});

describe('deployed documents', () => {
  it('reads the kind from the id', () => {
    expect(documentKind('urn:timer:acme:t')).toBe('timer');
    expect(documentKind('urn:policy:acme:p')).toBe('policy');
    expect(deployedDocument({ id: 'urn:timer:acme:t', xml: '<timer/>' })).toEqual({ kind: 'timer', id: 'urn:timer:acme:t', xml: '<timer/>' });
    const tree = { version: 1, policy: {} };
    expect(deployedDocument({ id: 'urn:policy:acme:p', xml: '<policy/>', tree })).toEqual({ kind: 'policy', id: 'urn:policy:acme:p', xml: '<policy/>', tree });
  });

  it('carries the revision its deployment began at', () => {
    expect(deployedDocument({ id: 'urn:policy:acme:p', xml: '<policy/>', deployedAt: 4 })).toEqual({ kind: 'policy', id: 'urn:policy:acme:p', xml: '<policy/>', deployedAt: 4 });
  });
});

describe('snapshot encoding: a part larger than a message travels in pieces', () => {
  const snapshot: PolicySnapshot = {
    revision: 3,
    policies: [
      { id: 'urn:policy:acme:ü', xml: `<policy>${'äöü € 𝄞 '.repeat(40)}</policy>` },
      { id: 'urn:timer:acme:t', xml: '<timer/>' },
    ],
    components: [],
  };
  const first = snapshot.policies[0]!;

  it('cuts the part of a large document into base64 pieces within the limit, joined back exactly', () => {
    const partBytes = Buffer.byteLength(JSON.stringify(first)) + 100;
    for (const maxBytes of [90, 97, 128, 333, partBytes]) {
      const messages = encodeSnapshotParts(snapshot, maxBytes).map(json);
      for (const message of encodeSnapshotParts(snapshot, maxBytes)) expect(message.length).toBeLessThanOrEqual(maxBytes);
      // Part 0 holds the components; part 1 the large document.
      const pieces = messages.filter((message) => 'piece' in message && message.index === 1);
      if (maxBytes < partBytes) {
        expect(pieces.length).toBeGreaterThan(1);
        pieces.forEach((piece, n) => expect(piece).toMatchObject({ format: 2, piece: n, more: n < pieces.length - 1, data: expect.any(String) }));
        // The pieces' bytes are the JSON of one part, cut anywhere (here through multi-byte characters).
        const joined = JSON.parse(Buffer.concat(pieces.map((piece) => Buffer.from(piece.data as string, 'base64'))).toString('utf8')) as Record<string, unknown>;
        expect(joined.policies).toEqual([first]);
      } else {
        expect(pieces).toEqual([]);
      }
      expect(decodeSnapshot(encodeSnapshotParts(snapshot, maxBytes))).toEqual(snapshot);
    }
  });

  it('gives a large document a part of its own between whole documents, its tree kept', () => {
    const tree = { version: 1, policy: { pad: 'y'.repeat(3000) } };
    const small = (n: number) => ({ id: `urn:policy:acme:s${n}`, xml: '<policy/>' });
    const large = { id: 'urn:policy:acme:t', xml: '<policy/>', tree };
    const outgoing: PolicySnapshot = { revision: 4, policies: [small(1), small(2), large, small(3)] };
    const messages = encodeSnapshotAnswer(outgoing, PAYLOAD_HEADROOM_BYTES + 1000).map(json);
    expect(messages[0]).toMatchObject({ index: 0, policies: [small(1), small(2)] });
    expect(messages.filter((message) => message.index === 1).every((message) => 'piece' in message)).toBe(true);
    expect(messages.at(-1)).toMatchObject({ index: 2, policies: [small(3)], last: true });
    expect(decodeSnapshot(encodeSnapshotAnswer(outgoing, PAYLOAD_HEADROOM_BYTES + 1000))).toEqual(outgoing);
  });

  // Without components, part 0 is the large document's.
  const bare: PolicySnapshot = { revision: 3, policies: snapshot.policies };

  it('fails on a piece out of order, missing, not base64, interrupted or too large', () => {
    const messages = encodeSnapshotParts(bare, 120).map(json);
    const [p0, p1, p2] = messages;
    const skipped = new SnapshotAssembler();
    skipped.add(p0);
    expect(() => skipped.add(p2)).toThrow(new SnapshotError('piece 2 of snapshot part 0 arrived where piece 1 was expected'));
    expect(() => new SnapshotAssembler().add(p1)).toThrow(/piece 1 of snapshot part 0 arrived where piece 0 was expected/);
    expect(() => new SnapshotAssembler().add({ ...p0, data: 'e$==' })).toThrow(new SnapshotError('piece 0 of snapshot part 0 is not base64'));
    expect(() => new SnapshotAssembler().add({ format: 2, index: 0, piece: 0, data: 'eA==' })).toThrow(/must hold `index`, `piece`, `more` and `data`/);
    const interrupted = new SnapshotAssembler();
    interrupted.add(p0);
    expect(() => interrupted.add({ format: 2, index: 0, last: true, revision: 3, policies: [] })).toThrow('snapshot part 0 stopped before its last piece');
    const garbled = new SnapshotAssembler();
    expect(() => garbled.add({ format: 2, index: 0, piece: 0, more: false, data: Buffer.from('{"format":').toString('base64') })).toThrow(
      'snapshot part 0, joined from its pieces, is not JSON',
    );
    const nested = { format: 2, index: 0, piece: 0, more: false, data: Buffer.from(JSON.stringify(p0)).toString('base64') };
    expect(() => new SnapshotAssembler().add(nested)).toThrow('snapshot part 0, joined from its pieces, is not a part');
    const bounded = new SnapshotAssembler(10);
    bounded.add({ format: 2, index: 0, piece: 0, more: true, data: Buffer.alloc(9).toString('base64') });
    expect(() => bounded.add({ format: 2, index: 0, piece: 1, more: false, data: Buffer.alloc(3).toString('base64') })).toThrow('snapshot part 0 exceeds 10 bytes');
  });

  it('decodes only a complete answer', () => {
    const messages = encodeSnapshotParts(bare, 120);
    expect(decodeSnapshot(messages)).toEqual(bare);
    expect(() => decodeSnapshot(messages.slice(0, -1))).toThrow(new SnapshotError('the snapshot is incomplete'));
  });
});

describe('change messages', () => {
  const deploy: PolicyChange = { revision: 8, type: 'deploy', policy: { id: 'urn:policy:acme:p', xml: '<policy>€</policy>' } };

  it('encodes a change as its JSON and reads it back from bytes', () => {
    const encoded = encodeChange(deploy, 1000);
    expect(encoded.resync).toBe(false);
    expect(new TextDecoder().decode(encoded.data)).toBe(JSON.stringify(deploy));
    expect(parseChange(encoded.data)).toEqual(deploy);
  });

  it('sends a resync of the same revision when the change exceeds the limit', () => {
    const exact = Buffer.byteLength(JSON.stringify(deploy));
    expect(encodeChange(deploy, exact).resync).toBe(false);
    const encoded = encodeChange(deploy, exact - 1);
    expect(encoded).toMatchObject({ resync: true, bytes: exact });
    expect(parseChange(encoded.data)).toEqual({ revision: 8, type: 'resync' });
  });

  it('drops the tree of a deploy too large with it, before falling back to resync', () => {
    const withTree: PolicyChange = { ...deploy, policy: { id: 'urn:policy:acme:p', xml: '<policy>€</policy>', tree: { version: 1, policy: { pad: 'x'.repeat(500) } } } };
    const full = Buffer.byteLength(JSON.stringify(withTree));
    const bare = Buffer.byteLength(JSON.stringify(deploy));
    expect(encodeChange(withTree, full)).toMatchObject({ resync: false, bytes: full });
    const lighter = encodeChange(withTree, full - 1);
    expect(lighter).toMatchObject({ resync: false, bytes: bare });
    expect(parseChange(lighter.data)).toEqual(deploy);
    expect(parseChange(encodeChange(withTree, bare - 1).data)).toEqual({ revision: 8, type: 'resync' });
  });

  it('reads and keeps `deployedAt`, also when the tree is dropped', () => {
    const policy = { id: 'urn:policy:acme:p', xml: '<policy/>', deployedAt: 5 };
    const change: PolicyChange = { revision: 8, type: 'deploy', policy };
    expect(parseChange(JSON.stringify(change))).toEqual(change);
    const withTree: PolicyChange = { ...change, policy: { ...policy, tree: { version: 1, policy: { pad: 'x'.repeat(500) } } } };
    const lighter = encodeChange(withTree, Buffer.byteLength(JSON.stringify(change)));
    expect(lighter.resync).toBe(false);
    expect(parseChange(lighter.data)).toEqual(change);
  });

  it('reads a `documents` change with several documents, and drops their trees before falling back to resync', () => {
    const documents: PolicyChange = {
      revision: 9,
      type: 'documents',
      deploy: [
        { id: 'urn:policy:acme:a', xml: '<policy/>', deployedAt: 9 },
        { id: 'urn:timer:acme:t', xml: '<timer/>' },
      ],
      revoke: ['urn:policy:acme:old'],
    };
    expect(parseChange(encodeChange(documents, 1000).data)).toEqual(documents);
    const withTree: PolicyChange = { ...documents, deploy: [{ ...documents.deploy[0]!, tree: { version: 1, pad: 'x'.repeat(500) } }, documents.deploy[1]!] };
    const bare = Buffer.byteLength(JSON.stringify(documents));
    const lighter = encodeChange(withTree, bare);
    expect(lighter).toMatchObject({ resync: false, bytes: bare });
    expect(parseChange(lighter.data)).toEqual(documents);
    expect(parseChange(encodeChange(withTree, bare - 1).data)).toEqual({ revision: 9, type: 'resync' });
  });

  it('refuses a `documents` change with an unreadable document or id', () => {
    for (const body of [{ deploy: [{ id: 'urn:policy:acme:a' }], revoke: [] }, { deploy: [], revoke: [5] }, { deploy: {}, revoke: [] }, { deploy: [] }]) {
      expect(parseChange(JSON.stringify({ revision: 9, type: 'documents', ...body }))).toMatch(/`deploy` must be a list of documents/);
    }
  });

  it('refuses a `deployedAt` that is not a revision', () => {
    for (const deployedAt of [-1, 1.5, '5', null]) {
      const message = JSON.stringify({ revision: 8, type: 'deploy', policy: { id: 'urn:policy:acme:p', xml: '<policy/>', deployedAt } });
      expect(parseChange(message)).toMatch(/`deployedAt` only as a revision/);
    }
  });

  it('reads `deployedAt` in snapshots and refuses a bad one', () => {
    const snapshot: PolicySnapshot = { revision: 9, policies: [{ id: 'urn:policy:acme:p', xml: '<policy/>', deployedAt: 7 }], components: [] };
    expect(decodeSnapshot(encodeSnapshotAnswer(snapshot, PAYLOAD_HEADROOM_BYTES + 64))).toEqual(snapshot);
    const bad = { format: 2, index: 0, last: true, revision: 9, policies: [{ id: 'urn:policy:acme:p', xml: '<policy/>', deployedAt: 'x' }] };
    expect(() => new SnapshotAssembler().add(bad)).toThrow(SnapshotError);
  });
});

describe('components', () => {
  const pxp: Component = {
    id: { componentType: 'PXP', identifier: 'urn:component:acme:pxp:mail' },
    urls: ['https://mail.example/x', 'ftp://nope.example'],
    componentInterfaces: [
      { type: 'InterfaceDescription', methodName: 'urn:action:acme:send', returnType: 'void', parameters: [] },
      { type: 'InterfaceDescription', methodName: 'urn:action:globex:send', returnType: 'void', parameters: [] },
    ],
  };

  it('states the rules the schemas cannot, each with its path', () => {
    expect(componentRuleErrors(pxp, 'acme', 'PXP')).toEqual([
      { path: 'urls[1]', message: '`ftp://nope.example` is not an absolute http, https or rmi URL' },
      { path: 'componentInterfaces[1].methodName', message: 'must be `urn:action:acme:<name>`, got `urn:action:globex:send`' },
    ]);
    expect(componentRuleErrors(pxp, 'acme', 'PIP')[0]).toEqual({ path: 'id.componentType', message: 'must equal the type segment of the identifier, `PIP`' });
    expect(componentRuleErrors(pxp, undefined, undefined)[0]?.path).toBe('id.identifier');
  });

  it('takes only pip and pxp components of the shape a receiver indexes', () => {
    expect(propagatedComponent(pxp)).toBe(pxp);
    expect(propagatedComponent({ ...pxp, id: { componentType: 'PEP', identifier: 'x' } })).toBeUndefined();
    expect(propagatedComponent({ ...pxp, urls: [1] })).toBeUndefined();
    expect(propagatedComponent({ ...pxp, componentInterfaces: [{}] })).toBeUndefined();
  });
});
