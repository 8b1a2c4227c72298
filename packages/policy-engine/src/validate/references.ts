import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import { excerpt } from '../diagnostics';
import type { ValidationPass } from './pass';

/**
 * Names that refer to each other (policy-language.md §4, §6, §9): variable declarations are unique, every reference
 * names one, with the same type, and no declaration depends on itself; `valueChanged` ids are unique in the policy.
 */
export const referencesPass: ValidationPass = {
  name: 'references',
  run(policy, report) {
    const declarations = new Map<string, ElementNode>();
    for (const node of policy.children) {
      if (node.info.family !== 'variableDeclaration') continue;
      const name = node.attributes.get('name');
      if (name === undefined) continue;
      if (declarations.has(name.value)) {
        report('duplicate_name', `variable \`${excerpt(name.value)}\` is declared more than once`, name.location);
      } else {
        declarations.set(name.value, node);
      }
    }

    const valueChangedIds = new Set<string>();
    walk(policy, (node) => {
      if (node.info.family === 'variable') {
        const reference = node.attributes.get('reference');
        if (reference === undefined) return;
        const declaration = declarations.get(reference.value);
        if (declaration === undefined) {
          report('unknown_reference', `no variable \`${excerpt(reference.value)}\` is declared`, reference.location);
        } else if (declaration.info.declaredType !== node.info.declaredType) {
          report(
            'type_mismatch',
            `\`${node.name}\` refers to \`${excerpt(reference.value)}\`, declared as \`${declaration.name}\``,
            node.location,
          );
        }
      } else if (node.info.family === 'valueChanged') {
        const id = node.attributes.get('id');
        if (id === undefined) return;
        if (valueChangedIds.has(id.value)) {
          report('duplicate_id', `\`valueChanged\` id \`${excerpt(id.value)}\` is used more than once in the policy`, id.location);
        }
        valueChangedIds.add(id.value);
      }
    });

    for (const cycle of cycles(declarations)) {
      const [name] = cycle;
      const first = name === undefined ? undefined : declarations.get(name);
      if (name === undefined || first === undefined) continue;
      report(
        'reference_cycle',
        `variable \`${excerpt(name)}\` depends on itself (${cycle.map((name) => `\`${excerpt(name)}\``).join(' → ')})`,
        first.attributes.get('name')?.location ?? first.location,
      );
    }
  },
};

/** Each cycle of the declarations' references, reported once, from the declaration that comes first. */
function cycles(declarations: ReadonlyMap<string, ElementNode>): string[][] {
  const references = new Map<string, string[]>();
  for (const [name, node] of declarations) {
    const referenced: string[] = [];
    walk(node, (inner) => {
      const reference = inner.info.family === 'variable' ? inner.attributes.get('reference')?.value : undefined;
      if (reference !== undefined && declarations.has(reference)) referenced.push(reference);
    });
    references.set(name, referenced);
  }
  const found: string[][] = [];
  const done = new Set<string>();
  for (const start of declarations.keys()) {
    // Depth-first from each declaration, with an explicit stack of paths.
    const stack: string[][] = [[start]];
    const seen = new Set<string>();
    for (let path = stack.pop(); path !== undefined; path = stack.pop()) {
      const last = path.at(-1);
      for (const next of (last === undefined ? undefined : references.get(last)) ?? []) {
        if (next === start) {
          if (!path.some((name) => done.has(name))) found.push([...path, start]);
        } else if (!seen.has(next)) {
          seen.add(next);
          stack.push([...path, next]);
        }
      }
    }
    done.add(start);
  }
  return found;
}
