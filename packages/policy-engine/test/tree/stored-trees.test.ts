import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCompiledTree, supportsPolicyTree, type PolicyTree } from '../../src';
import { fields, object, string, nullable, integer } from '../../src/tree/codec';
import { fieldReader } from '../../src/tree/field-reader';
import { readValidPolicy } from '../../src/tree/read-tree';
import { serializeValidPolicy } from '../../src/tree/serialize-tree';
import { TreeDamage } from '../../src/tree/tree-damage';
import { TreeScope } from '../../src/tree/tree-scope';
import { DECLARATION } from '../../src/tree/policy-codec';

/**
 * Trees stored before the codec still read: pap's outbox rows and a stack's JetStream stream survive an upgrade.
 * `fixtures/version-1-trees.json` holds the trees the engine wrote for the conformance corpus (every policy it
 * accepts) before its tree codec was derived from one description; the format did not change, so they keep
 * version 1.
 */
const STORED = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'version-1-trees.json'), 'utf8')) as PolicyTree[];

describe('trees stored by the engine before the codec', () => {
  it('are many, all of version 1', () => {
    expect(STORED.length).toBeGreaterThanOrEqual(150);
    expect(new Set(STORED.map((tree) => tree.version))).toEqual(new Set([1]));
  });

  it.each(STORED.map((tree, index) => [index, tree] as const))('tree %i compiles and is written back as the same text', (_, tree) => {
    expect(supportsPolicyTree(tree)).toBe(true);
    expect(loadCompiledTree(tree).ok).toBe(true);
    expect(JSON.stringify(serializeValidPolicy(readValidPolicy(tree.policy)))).toBe(JSON.stringify(tree));
  });
});

describe('the field reader', () => {
  const shape = object(fields({ name: string, size: nullable(integer(0, 9)) }));
  const entries = [
    { name: 'name', key: 'name', codec: string },
    { name: 'size', key: 'size', codec: nullable(integer(0, 9)) },
  ];
  const scope = () => new TreeScope(DECLARATION);
  const readWith = (generate: boolean, value: Record<string, unknown>) => {
    const into: Record<string, unknown> = {};
    try {
      fieldReader(entries, generate)(value, scope(), into);
      return into;
    } catch (error) {
      if (error instanceof TreeDamage) return error.root('value').message;
      throw error;
    }
  };

  it('is generated for the shape where the runtime allows it, a loop where asked', () => {
    // The generated reader is what keeps reading fast; a silent fall back to the loop would only be slower.
    expect(fieldReader(entries).name).toBe('readFields');
    expect(fieldReader(entries, false).name).not.toBe('readFields');
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    ['a whole object', { name: 'a', size: 3 }, { name: 'a', size: 3 }],
    ['null where allowed', { name: 'a', size: null }, { name: 'a', size: null }],
    ['a field of the wrong type', { name: 1, size: 3 }, 'value.name: is not a string'],
    ['a missing field', { name: 'a' }, 'value.size: is not a whole number from 0 to 9'],
    ['an inherited field', Object.create({ name: 'a' }, { size: { value: 1, enumerable: true } }) as Record<string, unknown>, 'value.name: is not a string'],
  ])('reads %s the same whether generated for the shape or looped', (_, value, expected) => {
    expect(readWith(true, value)).toEqual(expected);
    expect(readWith(false, value)).toEqual(expected);
    if (typeof expected !== 'string') expect(shape.read(value, scope())).toEqual(expected);
  });
});
