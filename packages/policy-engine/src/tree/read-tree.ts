import type { SourceLocation } from '../diagnostics';
import type { ComparisonOperator, ArithmeticOperator, ExpressionOf, ValidExpression } from '../ast/valid/expressions';
import type { ValidBound, ValidFilter, ValidHistory, ValidOccurrence, ValidWhen } from '../ast/valid/history';
import type { ValidJsonPath } from '../ast/valid/located';
import type {
  ParameterSource,
  ValidBranch,
  ValidDeclaration,
  ValidDecision,
  ValidExecute,
  ValidMechanism,
  ValidModify,
  ValidParameter,
  ValidPolicy,
} from '../ast/valid/policy';
import type { ValueType } from '../ast/value-types';
import { MATCH_MODES, type MatchMode } from '../functions/matching';
import { FIXED_TIMES, type TimeExpression, type TimeField } from '../parse/time-expression';
import { Fields, wholeNumber } from './tree-fields';
import { TreeDamage, TreePath } from './tree-damage';
import { jsonPathFrom, literalOf, regexFrom } from './tree-values';

/**
 * The tree carries no source locations: compile reads none, and whoever reported problems with locations (pap)
 * read the XML. Every node read from a tree is placed here.
 */
const UNLOCATED: SourceLocation = Object.freeze({ line: 0 });

/** Policies nest at most 100 elements deep (the XML reader's limit); anything much deeper is damage, not a policy. */
const MAX_DEPTH = 200;

const COMPARISONS = ['before', 'after', 'exactly'] as const;
const COMPARISON_OPERATORS: readonly ComparisonOperator[] = ['less', 'lessEqual', 'greater', 'greaterEqual'];
const ARITHMETIC_OPERATORS: readonly ArithmeticOperator[] = ['plus', 'minus', 'multiply', 'divide'];
/** The ranges of absolute fields, as the time expression reader allows them. */
const TIME_FIELDS = [
  ['day', 1, 31],
  ['month', 1, 12],
  ['year', 1, 9999],
  ['hour', 0, 23],
  ['minute', 0, 59],
  ['second', 0, 59],
] as const;

/**
 * Reads the `policy` of a `PolicyTree` back into the validated tree, checking every value on the way as the passes
 * and the builder would have guaranteed it: kinds, result types of operands, operand counts, literal types, ranges,
 * declaration references (known, same type, no cycle). Throws `TreeDamage` at the first value that is off.
 */
export function readValidPolicy(value: unknown): ValidPolicy {
  return new TreeReader().policy(Fields.of(value, TreePath.root('policy')));
}

class TreeReader {
  private readonly declarationFields = new Map<string, Fields>();
  private readonly declarations = new Map<string, ValidDeclaration>();
  private readonly reading = new Set<string>();
  private depth = 0;

  policy(fields: Fields): ValidPolicy {
    const id = fields.string('id');
    const solution = fields.string('solution');
    if (!id.startsWith(`urn:policy:${solution}:`)) throw new TreeDamage(fields.at('id'), `\`${id}\` is not a policy of solution \`${solution}\``);
    const declared = fields.list('declarations');
    for (const item of declared) {
      const declaration = Fields.of(item.value, item.where);
      const name = declaration.string('name');
      if (this.declarationFields.has(name)) throw new TreeDamage(declaration.at('name'), `\`${name}\` is declared twice`);
      this.declarationFields.set(name, declaration);
    }
    const declarations = [...this.declarationFields.keys()].map((name) => this.declaration(name, null, fields.at('declarations')));
    return {
      location: UNLOCATED,
      id,
      solution,
      name: fields.stringOrNull('name'),
      description: fields.stringOrNull('description'),
      declarations,
      mechanisms: fields.list('mechanisms', 1).map((item) => this.mechanism(Fields.of(item.value, item.where))),
    };
  }

  /** The declaration `name`, read once; of type `type` when given. */
  private declaration(name: string, type: ValueType | null, where: TreePath): ValidDeclaration {
    const fields = this.declarationFields.get(name);
    if (fields === undefined) throw new TreeDamage(where, `refers to the undeclared variable \`${name}\``);
    let declaration = this.declarations.get(name);
    if (declaration === undefined) {
      if (this.reading.has(name)) throw new TreeDamage(where, `the variable \`${name}\` depends on itself`);
      this.reading.add(name);
      const declaredType = fields.type('type');
      const value = this.typed(fields.raw('value'), fields.at('value'), [declaredType]);
      this.reading.delete(name);
      declaration = { name, type: declaredType, location: UNLOCATED, value } as ValidDeclaration;
      this.declarations.set(name, declaration);
    }
    if (type !== null && declaration.type !== type) throw new TreeDamage(where, `refers to \`${name}\` of type ${declaration.type}, not ${type}`);
    return declaration;
  }

  private mechanism(fields: Fields): ValidMechanism {
    const branches = fields.list('branches', 1).map((item, index): ValidBranch => {
      const branch = Fields.of(item.value, item.where);
      const kind = branch.oneOf('kind', index === 0 ? ['if'] : ['elseif']);
      return {
        kind,
        location: UNLOCATED,
        condition: this.typed(branch.raw('condition'), branch.at('condition'), ['boolean']),
        then: this.decision(branch.object('then')),
      };
    });
    const [first, ...rest] = branches;
    if (first === undefined) throw new TreeDamage(fields.at('branches'), 'is empty');
    const otherwise = fields.objectOrNull('otherwise');
    return {
      location: UNLOCATED,
      event: fields.string('event'),
      branches: [first, ...rest],
      otherwise: otherwise === null ? null : this.decision(otherwise),
      executions: this.executions(fields),
    };
  }

  private decision(fields: Fields): ValidDecision {
    const verdictFields = fields.objectOrNull('verdict');
    const verdict = verdictFields === null ? null : { kind: verdictFields.oneOf('kind', ['allow', 'inhibit'] as const), reason: verdictFields.stringOrNull('reason') };
    const modifiers = fields.list('modifiers').map((item): ValidModify => {
      const modify = Fields.of(item.value, item.where);
      return {
        location: UNLOCATED,
        eventParameter: modify.string('eventParameter'),
        method: modify.string('method'),
        path: this.path(modify, 'path'),
        reason: modify.stringOrNull('reason'),
        parameters: this.parameters(modify),
      };
    });
    if (verdict !== null && verdict.kind === 'allow' && modifiers.length > 0) throw new TreeDamage(fields.at('modifiers'), 'modify beside allow');
    return { location: UNLOCATED, verdict, modifiers, delayMs: fields.integerOrNull('delayMs', 0), executions: this.executions(fields) };
  }

  private executions(fields: Fields): ValidExecute[] {
    return fields.list('executions').map((item) => this.execute(Fields.of(item.value, item.where)));
  }

  private execute(fields: Fields): ValidExecute {
    return { location: UNLOCATED, action: fields.string('action'), parameters: this.parameters(fields) };
  }

  private parameters(fields: Fields): ValidParameter[] {
    return fields.list('parameters').map((item) => this.parameter(Fields.of(item.value, item.where)));
  }

  private parameter(fields: Fields): ValidParameter {
    const type = fields.type('type');
    const sourceFields = fields.object('source');
    let source: ParameterSource;
    switch (sourceFields.oneOf('kind', ['literal', 'expression', 'none'] as const)) {
      case 'literal':
        source = { kind: 'literal', value: literalOf(type, sourceFields.raw('value'), sourceFields.at('value')) };
        break;
      case 'expression':
        source = { kind: 'expression', expression: this.typed(sourceFields.raw('expression'), sourceFields.at('expression'), [type]) };
        break;
      case 'none':
        source = { kind: 'none' };
        break;
    }
    return { name: fields.string('name'), type, location: UNLOCATED, source } as ValidParameter;
  }

  private path(fields: Fields, key: string): ValidJsonPath | null {
    const text = fields.stringOrNull(key);
    return text === null ? null : jsonPathFrom(text, fields.at(key));
  }

  /** An expression whose result is of one of `types` (any type when null). */
  private typed<T extends ValueType>(value: unknown, where: TreePath, types: readonly T[]): ExpressionOf<T> {
    const expression = this.expression(value, where);
    if (!(types as readonly ValueType[]).includes(expression.type)) throw new TreeDamage(where, `is of type ${expression.type}, not ${types.join(' or ')}`);
    return expression as ExpressionOf<T>;
  }

  private operands<T extends ValueType>(fields: Fields, key: string, min: number, types: readonly T[] | null): Array<ExpressionOf<T>> {
    return fields.list(key, min).map((item) => (types === null ? this.expression(item.value, item.where) : this.typed(item.value, item.where, types))) as Array<ExpressionOf<T>>;
  }

  private expression(value: unknown, where: TreePath): ValidExpression {
    if (++this.depth > MAX_DEPTH) throw new TreeDamage(where, `nests deeper than ${MAX_DEPTH}`);
    try {
      return this.node(Fields.of(value, where));
    } finally {
      this.depth--;
    }
  }

  private node(fields: Fields): ValidExpression {
    const location = UNLOCATED;
    const kind = fields.string('kind');
    const expect = (type: ValueType) => {
      if (fields.raw('type') !== type) throw new TreeDamage(fields.at('type'), `a \`${kind}\` is of type ${type}`);
    };
    switch (kind) {
      case 'and':
      case 'or':
        expect('boolean');
        return { kind, type: 'boolean', location, eager: fields.boolean('eager'), operands: this.operands(fields, 'operands', 1, ['boolean']) };
      case 'xor':
        expect('boolean');
        return { kind, type: 'boolean', location, operands: this.operands(fields, 'operands', 1, ['boolean']) };
      case 'not':
        expect('boolean');
        return { kind, type: 'boolean', location, operand: this.typed(fields.raw('operand'), fields.at('operand'), ['boolean']) };
      case 'implies':
        expect('boolean');
        return {
          kind,
          type: 'boolean',
          location,
          premise: this.typed(fields.raw('premise'), fields.at('premise'), ['boolean']),
          conclusion: this.typed(fields.raw('conclusion'), fields.at('conclusion'), ['boolean']),
        };
      case 'equals':
        expect('boolean');
        return { kind, type: 'boolean', location, operands: this.operands(fields, 'operands', 2, null) };
      case 'comparison':
        expect('boolean');
        return { kind, type: 'boolean', location, operator: fields.oneOf('operator', COMPARISON_OPERATORS), operands: this.operands(fields, 'operands', 2, ['number']) };
      case 'arithmetic':
        expect('number');
        return { kind, type: 'number', location, operator: fields.oneOf('operator', ARITHMETIC_OPERATORS), operands: this.operands(fields, 'operands', 2, ['number']) };
      case 'size':
        expect('number');
        return { kind, type: 'number', location, operand: this.typed(fields.raw('operand'), fields.at('operand'), ['list', 'string']) };
      case 'concat':
        expect('string');
        return { kind, type: 'string', location, operands: this.operands(fields, 'operands', 1, null) };
      case 'regex':
        expect('boolean');
        return {
          kind,
          type: 'boolean',
          location,
          regex: regexFrom(fields.string('regex'), fields.at('regex')),
          mode: this.mode(fields),
          operands: this.operands(fields, 'operands', 1, ['string']),
        };
      case 'contains':
        expect('boolean');
        return {
          kind,
          type: 'boolean',
          location,
          mode: this.mode(fields),
          list: this.typed(fields.raw('list'), fields.at('list'), ['list']),
          items: this.operands(fields, 'items', 1, null),
        };
      case 'eventHasParameter':
        expect('boolean');
        return { kind, type: 'boolean', location, mode: this.mode(fields), operands: this.operands(fields, 'operands', 1, ['string']) };
      case 'date':
        expect('boolean');
        return { kind, type: 'boolean', location, comparison: fields.oneOf('comparison', COMPARISONS), dayOfYear: fields.integer('dayOfYear', 10_101, 99_991_231) };
      case 'time':
        expect('boolean');
        return { kind, type: 'boolean', location, comparison: fields.oneOf('comparison', COMPARISONS), minuteOfDay: fields.integer('minuteOfDay', 0, 24 * 60 - 1) };
      case 'day': {
        expect('boolean');
        const weekdays = fields.list('weekdays', 1).map((item) => wholeNumber(item.value, item.where, 0, 6));
        return { kind, type: 'boolean', location, weekdays: new Set(weekdays) };
      }
      case 'count':
        expect('number');
        return { kind, type: 'number', location, history: this.history(fields.object('history')) };
      case 'continuousOccurrence': {
        expect('boolean');
        const maxOccurrences = fields.integerOrNull('maxOccurrences', 0);
        return {
          kind,
          type: 'boolean',
          location,
          history: this.history(fields.object('history')),
          intervalMs: fields.integer('intervalMs', 1),
          minOccurrences: fields.integer('minOccurrences', 0),
          maxOccurrences: maxOccurrences ?? Infinity,
        };
      }
      case 'execute':
        expect('boolean');
        return { kind, type: 'boolean', location, execute: this.execute(fields.object('execute')) };
      case 'constant': {
        const type = fields.type('type');
        return { kind, type, location, value: literalOf(type, fields.raw('value'), fields.at('value')) } as ValidExpression;
      }
      case 'event': {
        const type = fields.type('type');
        return {
          kind,
          type,
          location,
          parameter: fields.string('parameter'),
          defaultValue: literalOf(type, fields.raw('defaultValue'), fields.at('defaultValue')),
          path: this.path(fields, 'path'),
        } as ValidExpression;
      }
      case 'pip': {
        const type = fields.type('type');
        return {
          kind,
          type,
          location,
          method: fields.string('method'),
          defaultValue: literalOf(type, fields.raw('defaultValue'), fields.at('defaultValue')),
          ttlMs: fields.integerOrNull('ttlMs', 0),
          parameters: this.parameters(fields),
        } as ValidExpression;
      }
      case 'variable': {
        const type = fields.type('type');
        return { kind, type, location, declaration: this.declaration(fields.string('reference'), type, fields.at('reference')) } as ValidExpression;
      }
      case 'valueChanged': {
        expect('boolean');
        const valueType = fields.type('valueType');
        const to = fields.raw('to');
        return {
          kind,
          type: 'boolean',
          location,
          valueType,
          id: fields.string('id'),
          to: to === null ? null : literalOf(valueType, to, fields.at('to')),
          operand: this.typed(fields.raw('operand'), fields.at('operand'), [valueType]),
        };
      }
      default:
        throw new TreeDamage(fields.at('kind'), `\`${kind}\` is not a kind of expression`);
    }
  }

  private mode(fields: Fields): MatchMode {
    return fields.oneOf('mode', MATCH_MODES);
  }

  private history(fields: Fields): ValidHistory {
    return { occurrence: this.occurrence(fields.object('occurrence')), when: this.when(fields.object('when')) };
  }

  private occurrence(fields: Fields): ValidOccurrence {
    const filters = fields.list('filters').map((item): ValidFilter => {
      const filter = Fields.of(item.value, item.where);
      return { parameter: this.parameter(filter.object('parameter')), path: this.path(filter, 'path') };
    });
    return { location: UNLOCATED, action: fields.string('action'), filters };
  }

  private when(fields: Fields): ValidWhen {
    if (fields.oneOf('kind', ['fixed', 'bounds'] as const) === 'fixed') {
      return { kind: 'fixed', location: UNLOCATED, fixedTime: fields.oneOf('fixedTime', FIXED_TIMES) };
    }
    return { kind: 'bounds', location: UNLOCATED, start: this.bound(fields.objectOrNull('start')), end: this.bound(fields.objectOrNull('end')) };
  }

  private bound(fields: Fields | null): ValidBound | null {
    if (fields === null) return null;
    const time = fields.objectOrNull('time');
    const reference = fields.objectOrNull('occurrence');
    if (time === null && reference === null) throw new TreeDamage(fields.where, 'has neither a time nor an occurrence');
    return {
      location: UNLOCATED,
      time: time === null ? null : timeExpression(time),
      occurrence:
        reference === null
          ? null
          : { occurrence: this.occurrence(reference.object('occurrence')), which: reference.oneOf('which', ['first', 'last'] as const) },
    };
  }
}

function timeExpression(fields: Fields): TimeExpression {
  const read = ([name, low, high]: (typeof TIME_FIELDS)[number]): TimeField => {
    const field = fields.object(name);
    switch (field.oneOf('kind', ['absolute', 'current', 'relative'] as const)) {
      case 'absolute':
        return { kind: 'absolute', value: field.integer('value', low, high) };
      case 'current':
        return { kind: 'current' };
      case 'relative':
        return { kind: 'relative', offset: field.integer('offset', -999_999, 999_999) };
    }
  };
  const [day, month, year, hour, minute, second] = TIME_FIELDS.map(read);
  if (day === undefined || month === undefined || year === undefined || hour === undefined || minute === undefined || second === undefined) {
    throw new TreeDamage(fields.where, 'lacks a field');
  }
  return { day, month, year, hour, minute, second };
}
