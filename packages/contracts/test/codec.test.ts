import {
  PAYLOAD_HEADROOM_BYTES,
  SnapshotAssembler,
  SnapshotError,
  componentRuleErrors,
  decodeSnapshot,
  deployedDocument,
  documentKind,
  encodeChange,
  encodeSnapshot,
  parseChange,
  propagatedComponent,
  snapshotChunkBytes,
  type Component,
  type PolicyChange,
  type PolicySnapshot,
} from '@custos/contracts';
import { decodeBase64, encodeBase64 } from '../src/base64';

const join = (chunks: ReturnType<typeof encodeSnapshot>): PolicySnapshot => {
  const assembler = new SnapshotAssembler();
  chunks.forEach((chunk) => assembler.add(chunk));
  return assembler.result();
};

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

describe('snapshot encoding', () => {
  const snapshot: PolicySnapshot = {
    revision: 3,
    policies: [
      { id: 'urn:policy:acme:ü', xml: '<policy>äöü € 𝄞</policy>' },
      { id: 'urn:timer:acme:t', xml: '<timer/>' },
    ],
    components: [],
  };

  it('cuts the UTF-8 JSON into byte chunks of base64 that the assembler joins back', () => {
    const bytes = Buffer.byteLength(JSON.stringify(snapshot));
    for (const size of [1, 2, 3, 7, 64, bytes, bytes + 1]) {
      const chunks = encodeSnapshot(snapshot, size);
      expect(chunks).toHaveLength(Math.ceil(bytes / size));
      chunks.forEach((chunk, index) => {
        expect(chunk).toMatchObject({ index, last: index === chunks.length - 1 });
        expect(Buffer.from(chunk.data, 'base64').length).toBeLessThanOrEqual(size);
      });
      expect(Buffer.concat(chunks.map((c) => Buffer.from(c.data, 'base64'))).toString('utf8')).toBe(JSON.stringify(snapshot));
      expect(join(chunks)).toEqual(snapshot);
    }
  });

  it('decodes a complete list of chunks in index order, however they are listed', () => {
    const chunks = encodeSnapshot(snapshot, 5);
    expect(decodeSnapshot([...chunks].reverse())).toEqual(snapshot);
    // A list with a hole is not a snapshot.
    expect(() => decodeSnapshot(chunks.filter((chunk) => chunk.index !== 1))).toThrow(SnapshotError);
  });

  it('refuses a chunk size that is not a positive integer', () => {
    expect(() => encodeSnapshot(snapshot, 0)).toThrow('chunk size must be a positive integer, got 0');
    expect(() => encodeSnapshot(snapshot, 1.5)).toThrow(/positive integer/);
  });

  it('sizes chunks so that their base64 fits the payload limit with headroom', () => {
    const raw = snapshotChunkBytes(1024 * 1024);
    expect(raw % 3).toBe(0);
    expect((raw / 3) * 4).toBeLessThanOrEqual(1024 * 1024 - PAYLOAD_HEADROOM_BYTES);
    expect(((raw + 3) / 3) * 4).toBeGreaterThan(1024 * 1024 - PAYLOAD_HEADROOM_BYTES);
    expect(snapshotChunkBytes(10)).toBe(3);
  });

  it('fails a chunk whose data is not base64', () => {
    expect(() => new SnapshotAssembler().add({ index: 0, last: true, data: 'e$==' })).toThrow(new SnapshotError('snapshot chunk 0 is not base64'));
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
    expect(decodeSnapshot(encodeSnapshot(snapshot, 64))).toEqual(snapshot);
    const bad = { ...snapshot, policies: [{ id: 'urn:policy:acme:p', xml: '<policy/>', deployedAt: 'x' }] };
    const bytes = Buffer.from(JSON.stringify(bad));
    expect(() => decodeSnapshot([{ index: 0, last: true, data: bytes.toString('base64') }])).toThrow(SnapshotError);
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
