import { decodeSnapshot, encodeSnapshotParts, parseChange, SnapshotAssembler, SnapshotError, type PolicySnapshot } from '@custos/contracts';

/** A solution's settings on the wire: the `settings` change and the snapshot's `settings`, in a part and in pieces. */

describe('the `settings` change', () => {
  it('reads a solution and its settings; `{}` is a solution without settings', () => {
    expect(parseChange('{"revision":7,"type":"settings","solution":"acme","settings":{"defaultDecision":"inhibit","authzenDefault":"allow"}}')).toEqual({
      revision: 7,
      type: 'settings',
      solution: 'acme',
      settings: { defaultDecision: 'inhibit', authzenDefault: 'allow' },
    });
    expect(parseChange('{"revision":8,"type":"settings","solution":"acme","settings":{}}')).toEqual({ revision: 8, type: 'settings', solution: 'acme', settings: {} });
  });

  it('refuses an unknown value, a missing solution or settings that are no object', () => {
    const refusal = /change 9: `solution` must be a solution and `settings` an object of known settings/;
    expect(parseChange('{"revision":9,"type":"settings","solution":"acme","settings":{"defaultDecision":"deny"}}')).toMatch(refusal);
    expect(parseChange('{"revision":9,"type":"settings","solution":"acme","settings":{"authzenDefault":"inhibit"}}')).toMatch(refusal);
    expect(parseChange('{"revision":9,"type":"settings","settings":{}}')).toMatch(refusal);
    expect(parseChange('{"revision":9,"type":"settings","solution":"acme","settings":[]}')).toMatch(refusal);
  });
});

const snapshot: PolicySnapshot = {
  revision: 12,
  policies: [{ id: 'urn:policy:acme:p', xml: '<policy/>' }],
  settings: [
    { solution: 'acme', settings: { defaultDecision: 'inhibit' } },
    { solution: 'beta', settings: { authzenDefault: 'allow' } },
  ],
};

describe("a snapshot's settings", () => {
  it('travel in part 0 cut into pieces and are read back', () => {
    const messages = encodeSnapshotParts(snapshot, 90);
    expect(messages.length).toBeGreaterThan(2);
    expect(decodeSnapshot(messages)).toEqual(snapshot);
  });

  it('travel in part 0 of SnapshotParts and are read back; a later part may not hold them', () => {
    const parts = encodeSnapshotParts({ ...snapshot, policies: Array.from({ length: 6 }, (_, n) => ({ id: `urn:policy:acme:p${n}`, xml: 'x'.repeat(100) })) }, 400);
    expect(parts.length).toBeGreaterThan(1);
    const messages = parts.map((part) => JSON.parse(Buffer.from(part).toString('utf8')) as Record<string, unknown>);
    expect(messages.map((message) => 'settings' in message)).toEqual(messages.map((_, index) => index === 0));
    const assembler = new SnapshotAssembler();
    messages.forEach((message) => assembler.add(message));
    expect(assembler.result().settings).toEqual(snapshot.settings);

    const misplaced = new SnapshotAssembler();
    misplaced.add(messages[0]);
    expect(() => misplaced.add({ ...messages[1], settings: [] })).toThrow(/holds `settings`, which only part 0 may/);
  });

  it('are optional, and refused when malformed or naming a solution twice', () => {
    const read = (settings?: unknown) => {
      const assembler = new SnapshotAssembler();
      assembler.add({ format: 2, index: 0, last: true, revision: 1, policies: [], ...(settings === undefined ? {} : { settings }) });
      return assembler.result();
    };
    expect(read().settings).toBeUndefined();
    expect(() => read({})).toThrow(SnapshotError);
    expect(() => read([{ solution: 'acme', settings: { defaultDecision: 'maybe' } }])).toThrow(/snapshot settings 0/);
    expect(() => read([{ solution: 'acme', settings: {} }, { solution: 'acme', settings: {} }])).toThrow(/`acme` twice/);
  });
});
