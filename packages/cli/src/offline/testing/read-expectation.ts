import type { Shape } from './shape';
import type { ExpectedExecute, ExpectedModifier, ExpectedParameter, Expectation } from './test-file';
import type { PathSegment } from './yaml-source';

const ACTION_URN = /^urn:action:[a-z0-9._-]+:[A-Za-z0-9._-]+$/;

/** A test's `expect`: `allowed`, and optionally `delay`, `modifiers` (wire shape, compared as subsets) and `executes`. */
export function readExpectation(value: unknown, at: readonly PathSegment[], shape: Shape, extra: readonly string[] = []): Expectation | undefined {
  const record = shape.record(value, at, { required: ['allowed'], optional: ['modifiers', 'delay', 'executes', ...extra] });
  if (record === undefined) return undefined;
  const allowed = shape.boolean(record.allowed, [...at, 'allowed']);
  // Read on after a bad `allowed`, so every problem of the expectation is reported at once.
  const expectation: Expectation = { allowed: allowed ?? false };
  if (record.delay !== undefined) {
    const delay = shape.integer(record.delay, [...at, 'delay']);
    if (delay !== undefined) expectation.delay = delay;
  }
  if (record.modifiers !== undefined) {
    const modifiers: ExpectedModifier[] = [];
    shape.list(record.modifiers, [...at, 'modifiers'])?.forEach((item, index) => {
      const modifier = readModifier(item, [...at, 'modifiers', index], shape);
      if (modifier !== undefined) modifiers.push(modifier);
    });
    expectation.modifiers = modifiers;
  }
  if (record.executes !== undefined) {
    const executes: ExpectedExecute[] = [];
    shape.list(record.executes, [...at, 'executes'])?.forEach((item, index) => {
      const where = [...at, 'executes', index];
      if (typeof item === 'string') {
        const action = shape.string(item, where, { pattern: ACTION_URN, hint: 'is not an action; expected `urn:action:<solution>:<name>`' });
        if (action !== undefined) executes.push({ action, parameters: null });
        return;
      }
      const entry = shape.record(item, where, { required: ['action'], optional: ['parameters'] });
      if (entry === undefined) return;
      const action = shape.string(entry.action, [...where, 'action'], { pattern: ACTION_URN, hint: 'is not an action; expected `urn:action:<solution>:<name>`' });
      const parameters = entry.parameters === undefined ? null : shape.record(entry.parameters, [...where, 'parameters'], { optional: Object.keys(asRecord(entry.parameters)) });
      if (action !== undefined && parameters !== undefined) executes.push({ action, parameters });
    });
    expectation.executes = executes;
  }
  return allowed === undefined ? undefined : expectation;
}

function readModifier(value: unknown, at: readonly PathSegment[], shape: Shape): ExpectedModifier | undefined {
  const record = shape.record(value, at, { required: ['name'], optional: ['expression', 'engine'] });
  if (record === undefined) return undefined;
  const name = shape.string(record.name, [...at, 'name'], { nonEmpty: true });
  const modifier: ExpectedModifier = { name: name ?? '' };
  if (record.expression !== undefined) {
    const expression = shape.string(record.expression, [...at, 'expression']);
    if (expression !== undefined) modifier.expression = expression;
  }
  if (record.engine !== undefined) {
    const engines = shape.list(record.engine, [...at, 'engine']);
    if (engines !== undefined && engines.length !== 1) shape.fail([...at, 'engine'], 'must hold exactly one engine, as every modifier on the wire does');
    modifier.engine = [];
    engines?.forEach((item, index) => {
      const where = [...at, 'engine', index];
      const engine = shape.record(item, where, { optional: ['method', 'parameters'] });
      if (engine === undefined) return;
      const entry: { method?: string; parameters?: ExpectedParameter[] } = {};
      if (engine.method !== undefined) {
        const method = shape.string(engine.method, [...where, 'method'], { nonEmpty: true });
        if (method !== undefined) entry.method = method;
      }
      if (engine.parameters !== undefined) {
        const parameters: ExpectedParameter[] = [];
        shape.list(engine.parameters, [...where, 'parameters'])?.forEach((parameter, position) => {
          const p = [...where, 'parameters', position];
          const read = shape.record(parameter, p, { required: ['name', 'value'] });
          if (read === undefined) return;
          const parameterName = shape.string(read.name, [...p, 'name'], { nonEmpty: true });
          const typed = shape.record(read.value, [...p, 'value'], { optional: ['value', 'type', 'isComplex'] });
          if (parameterName !== undefined && typed !== undefined) parameters.push({ name: parameterName, value: typed });
        });
        entry.parameters = parameters;
      }
      modifier.engine?.push(entry);
    });
  }
  return name === undefined ? undefined : modifier;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
