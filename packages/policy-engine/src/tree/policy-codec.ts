import type { ValidDeclaration, ValidDecision, ValidPolicy } from '../ast/valid/policy';
import { VALUE_TYPES } from '../ast/value-types';
import { choice, fields, headTail, integer, list, located, nullable, object, oneOf, readList, refine, sequence, string, type Codec } from './codec';
import { EXECUTE, PARAMETER, typed } from './expression-codec';
import { TreeDamage } from './tree-damage';
import { JSON_PATH } from './tree-values';

/** The JSON form of a policy around its expressions (see `PolicyTree`), described once for reading and writing. */

export const DECLARATION: Codec<ValidDeclaration> = object(
  located(sequence(fields({ name: string }), choice('type', VALUE_TYPES, (type) => fields({ value: typed([type]) })))),
);

const NAME_ONLY = object(fields({ name: string }));

/**
 * The declarations: each is kept by name first, then all are read in order, each once — a `variable` anywhere may
 * need any of them (`TreeScope`).
 */
const DECLARATIONS: Codec<readonly ValidDeclaration[]> = {
  read: (value, scope) => {
    readList(value, 0, (item, index) => {
      const { name } = NAME_ONLY.read(item, scope);
      if (!scope.declare(name, item, index)) throw new TreeDamage(`\`${name}\` is declared twice`).within('name');
    });
    return scope.all();
  },
  write: (declarations) => declarations.map(DECLARATION.write),
};

const MODIFY = object(
  located(fields({ eventParameter: string, method: string, path: nullable(JSON_PATH), reason: nullable(string), parameters: list(PARAMETER) })),
);
const VERDICT = nullable(object(fields({ kind: oneOf(['allow', 'inhibit']), reason: nullable(string) })));

const DECISION: Codec<ValidDecision> = refine(
  object(located(fields({ verdict: VERDICT, modifiers: list(MODIFY), delayMs: nullable(integer(0)), executions: list(EXECUTE) }))),
  (decision) => (decision.verdict?.kind === 'allow' && decision.modifiers.length > 0 ? { at: 'modifiers', problem: 'modify beside allow' } : null),
);

const branch = <K extends 'if' | 'elseif'>(kind: K) => object(located(fields({ kind: oneOf([kind]), condition: typed(['boolean']), then: DECISION })));

const MECHANISM = object(
  located(fields({ event: string, branches: headTail(branch('if'), branch('elseif')), otherwise: nullable(DECISION), executions: list(EXECUTE) })),
);

export const POLICY: Codec<ValidPolicy> = refine(
  object(
    located(
      fields({
        id: string,
        solution: string,
        name: nullable(string),
        description: nullable(string),
        declarations: DECLARATIONS,
        mechanisms: list(MECHANISM, 1),
      }),
    ),
  ),
  ({ id, solution }) => (id.startsWith(`urn:policy:${solution}:`) ? null : { at: 'id', problem: `\`${id}\` is not a policy of solution \`${solution}\`` }),
);
