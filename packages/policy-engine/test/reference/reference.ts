import type { ElementNode } from '../../src/ast/nodes';
import { parsePolicy } from '../../src/parse/parse-policy';
import { readXml } from '../../src/xml/read-xml';
import { readJsonPath } from '../../src/parse/json-path';
import { RE2JS } from 're2js';

/**
 * A reference evaluator of the pure part of the language, written for obviousness, not speed: it walks the syntax
 * tree for every event, reads every attribute again, and uses exceptions for evaluation errors. It shares only the
 * XML reading and parsing with the engine (and json-p3 / RE2 for paths and patterns); every rule of
 * policy-language.md §3–§5 and §7 is restated here from the spec.
 */
export interface ReferenceDecision {
  allowed: boolean;
  decided: boolean;
  delayMs: number;
  modifiers: Array<{ policyId: string; method: string; parameters: Array<{ name: string; value: unknown }> }>;
  executions: Array<{ policyId: string; action: string; parameters: Array<{ name: string; value: unknown }> }>;
  errors: number;
}

class Failed extends Error {}

export function referenceTree(xml: string): ElementNode {
  const read = readXml(xml);
  if (!read.ok) throw new Error('reference: unreadable policy');
  const parsed = parsePolicy(read.root);
  if (!parsed.ok) throw new Error('reference: unparsable policy');
  return parsed.policy;
}

const attr = (node: ElementNode, name: string): string | undefined => node.attributes.get(name)?.value;

function literal(type: string, text: string): unknown {
  switch (type) {
    case 'string':
      return text;
    case 'number':
      return Number(text.trim());
    case 'boolean':
      return text.trim() === 'true';
    default:
      return JSON.parse(type === 'list' ? text.replace(/'([^']*)'/g, '"$1"') : text);
  }
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

function fit(type: string, value: unknown): unknown {
  if (typeOf(value) === type) {
    if (type === 'number' && !Number.isFinite(value)) throw new Failed('not finite');
    return value;
  }
  if (type === 'number' && typeof value === 'string' && /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value.trim())) return Number(value.trim());
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  throw new Failed(`expected ${type}`);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])]));
  }
  return value;
}

function modeHolds(mode: string, hits: number, total: number): boolean {
  if (mode === 'EXACTLY_ONE') return hits === 1;
  if (mode === 'AT_LEAST_ONE') return hits >= 1;
  if (mode === 'NONE') return hits === 0;
  return hits === total;
}

interface Scope {
  event: ReadonlyMap<string, unknown>;
  declarations: Map<string, ElementNode>;
  values: Map<string, { value?: unknown; error?: Failed }>;
}

function value(node: ElementNode, scope: Scope): unknown {
  const [family, type] = node.name.includes(':') ? node.name.split(':') : [null, null];
  const all = (): unknown[] => node.children.map((child) => value(child, scope));
  switch (family) {
    case 'constant':
      return type === 'true' ? true : type === 'false' ? false : literal(type!, attr(node, 'value')!);
    case 'event': {
      const fallback = literal(type!, attr(node, 'default')!);
      const raw = scope.event.get(attr(node, 'eventParameter')!);
      if (raw === undefined || raw === null) return fallback;
      const path = attr(node, 'jsonPathQuery');
      if (path === undefined) return fit(type!, raw);
      const read = readJsonPath(path);
      if (!read.ok) throw new Error('reference: bad path');
      const found = read.value.query(raw as never).values();
      if (type === 'list' && !read.value.singularQuery()) return found;
      if (found.length === 0 || found[0] === null) return fallback;
      if (found.length > 1) throw new Failed('several values');
      return fit(type!, found[0]);
    }
    case 'variable': {
      const name = attr(node, 'reference')!;
      let known = scope.values.get(name);
      if (known === undefined) {
        try {
          known = { value: value(scope.declarations.get(name)!.children[0]!, scope) };
        } catch (error) {
          if (!(error instanceof Failed)) throw error;
          known = { error };
        }
        scope.values.set(name, known);
      }
      if (known.error !== undefined) throw known.error;
      return known.value;
    }
    default:
      break;
  }
  switch (node.name) {
    case 'and':
    case 'or': {
      const stop = node.name === 'or';
      if (attr(node, 'mode') === 'EAGER') {
        const values = all();
        return stop ? values.includes(true) : !values.includes(false);
      }
      for (const child of node.children) if (value(child, scope) === stop) return stop;
      return !stop;
    }
    case 'xor':
      return all().filter((item) => item === true).length % 2 === 1;
    case 'not':
      return value(node.children[0]!, scope) !== true;
    case 'implies':
      return value(node.children[0]!, scope) !== true || value(node.children[1]!, scope) === true;
    case 'equals': {
      const values = all();
      return values.every((item) => same(item, values[0]));
    }
    case 'less':
    case 'lessEqual':
    case 'greater':
    case 'greaterEqual': {
      const values = all() as number[];
      for (let index = 1; index < values.length; index += 1) {
        const [a, b] = [values[index - 1]!, values[index]!];
        const holds = { less: a < b, lessEqual: a <= b, greater: a > b, greaterEqual: a >= b }[node.name];
        if (!holds) return false;
      }
      return true;
    }
    case 'plus':
    case 'minus':
    case 'multiply':
    case 'divide': {
      const values = all() as number[];
      let result = values[0]!;
      for (const operand of values.slice(1)) {
        if (node.name === 'divide' && operand === 0) throw new Failed('division by zero');
        result = node.name === 'plus' ? result + operand : node.name === 'minus' ? result - operand : node.name === 'multiply' ? result * operand : result / operand;
      }
      if (!Number.isFinite(result)) throw new Failed('out of range');
      return result;
    }
    case 'size':
      return (value(node.children[0]!, scope) as string | unknown[]).length;
    case 'concat':
      return all()
        .map((item) => (typeof item === 'string' ? item : typeof item === 'object' ? JSON.stringify(item) : String(item)))
        .join('');
    case 'regex': {
      const pattern = RE2JS.compile(attr(node, 'regex')!);
      const values = all() as string[];
      return modeHolds(attr(node, 'mode') ?? 'ALL', values.filter((item) => pattern.matches(item)).length, values.length);
    }
    case 'contains': {
      const [list, ...wanted] = all() as [unknown[], ...unknown[]];
      return modeHolds(attr(node, 'mode') ?? 'ALL', wanted.filter((item) => list.some((element) => same(element, item))).length, wanted.length);
    }
    case 'eventHasParameter': {
      const names = all() as string[];
      return modeHolds(attr(node, 'mode') ?? 'ALL', names.filter((name) => scope.event.has(name)).length, names.length);
    }
    default:
      throw new Error(`reference: no rule for \`${node.name}\``);
  }
}

function parameters(owner: ElementNode, scope: Scope): Array<{ name: string; value: unknown }> {
  return owner.children
    .filter((child) => child.name.startsWith('parameter:'))
    .map((child) => {
      const given = attr(child, 'value');
      const computed =
        given !== undefined ? literal(child.name.split(':')[1]!, given) : child.children[0] === undefined ? null : value(child.children[0], scope);
      return { name: attr(child, 'name')!, value: computed };
    });
}

const UNIT: Record<string, number> = { MILLISECONDS: 1, SECONDS: 1000, MINUTES: 60_000, HOURS: 3_600_000 };

/** §3 and §7: every mechanism of every policy for the action, then the combination. */
export function referenceDecide(policies: ElementNode[], action: string, event: ReadonlyMap<string, unknown>, defaultDecision: 'allow' | 'inhibit'): ReferenceDecision {
  const ordered = [...policies].sort((a, b) => (attr(a, 'id')! < attr(b, 'id')! ? -1 : attr(a, 'id')! > attr(b, 'id')! ? 1 : 0));
  const verdicts: Array<{ verdict: string; delay: number; modifiers: ReferenceDecision['modifiers'] }> = [];
  const executions: ReferenceDecision['executions'] = [];
  let errors = 0;
  for (const policy of ordered) {
    const policyId = attr(policy, 'id')!;
    const declarations = new Map(policy.children.filter((child) => child.name.startsWith('variableDeclaration:')).map((child) => [attr(child, 'name')!, child]));
    const scope: Scope = { event, declarations, values: new Map() };
    for (const mechanism of policy.children.filter((child) => child.name === 'mechanism' && attr(child, 'event') === action)) {
      let decision: ElementNode | undefined;
      let branchExecutions: ReferenceDecision['executions'] = [];
      let modifiers: ReferenceDecision['modifiers'] = [];
      let failed = false;
      try {
        for (const branch of mechanism.children.filter((child) => child.name === 'if' || child.name === 'elseif')) {
          if (value(branch.children[0]!, scope) === true) {
            decision = branch.children[1];
            break;
          }
        }
        decision ??= mechanism.children.find((child) => child.name === 'else');
        for (const element of decision?.children ?? []) {
          if (element.name === 'modify') modifiers.push({ policyId, method: attr(element, 'method')!, parameters: parameters(element, scope) });
          if (element.name === 'execute') branchExecutions.push({ policyId, action: attr(element, 'action')!, parameters: parameters(element, scope) });
        }
      } catch (error) {
        if (!(error instanceof Failed)) throw error;
        failed = true;
        modifiers = [];
        branchExecutions = [];
      }
      // Unconditional executes run whatever the branch, each when its own parameters evaluate.
      const unconditional: ReferenceDecision['executions'] = [];
      for (const element of mechanism.children.filter((child) => child.name === 'execute')) {
        try {
          unconditional.push({ policyId, action: attr(element, 'action')!, parameters: parameters(element, scope) });
        } catch (error) {
          if (!(error instanceof Failed)) throw error;
          failed = true;
        }
      }
      if (failed) {
        errors += 1;
        executions.push(...unconditional);
        verdicts.push({ verdict: 'inhibit', delay: 0, modifiers: [] });
        continue;
      }
      executions.push(...branchExecutions, ...unconditional);
      const names = (decision?.children ?? []).map((child) => child.name);
      const delay = decision?.children.find((child) => child.name === 'delay');
      const delayMs = delay === undefined ? 0 : Math.round(Number(attr(delay, 'amount')) * UNIT[attr(delay, 'unit')!]!);
      const verdict = names.includes('inhibit') ? 'inhibit' : names.includes('allow') || names.includes('modify') ? 'allow' : 'none';
      verdicts.push({ verdict, delay: verdict === 'none' ? 0 : delayMs, modifiers });
    }
  }
  const deciding = verdicts.filter((item) => item.verdict !== 'none');
  if (deciding.length === 0) return { allowed: defaultDecision === 'allow', decided: false, delayMs: 0, modifiers: [], executions, errors };
  const inhibiting = deciding.filter((item) => item.verdict === 'inhibit');
  if (inhibiting.length > 0) {
    return { allowed: false, decided: true, delayMs: Math.max(...inhibiting.map((item) => item.delay)), modifiers: [], executions, errors };
  }
  return {
    allowed: true,
    decided: true,
    delayMs: Math.max(...deciding.map((item) => item.delay)),
    modifiers: deciding.flatMap((item) => item.modifiers),
    executions,
    errors,
  };
}
