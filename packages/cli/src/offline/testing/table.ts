import { closestName } from '@custos/policy-engine';
import type { Shape } from './shape';
import type { PathSegment } from './yaml-source';

/** The parts of a table that are written once and filled in by each row. */
const TEMPLATE_KEYS = ['event', 'tick', 'history', 'pips', 'pxps', 'expect'] as const;
const COLUMN = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const PLACEHOLDER = /^\$([A-Za-z_][A-Za-z0-9_-]*)$/;

/** One row of a table as a test written out in full, with where the row is written. */
export interface TableRow {
  test: Record<string, unknown>;
  /** `tests[3].rows[1]` as segments. */
  at: PathSegment[];
  table: string;
  row: string;
}

/**
 * A table of tests (docs/cli.md, "Tables"): one event shape (and optionally history, stubs, tick and expectation)
 * written once, with `$column` where each row puts its value, and `rows` of values. The `name` column names each
 * row's test (`<table>: <row>`); without an `expect`, the expectation is `{ allowed: $allowed }`. A `$` placeholder
 * that names no column, and a column no placeholder uses, are errors: both are almost always typos. `$$` writes a
 * string that begins with `$`. Undefined (with the problems in `shape`) when the table cannot be read.
 */
export function expandTable(value: Record<string, unknown>, at: readonly PathSegment[], shape: Shape): TableRow[] | undefined {
  const record = shape.record(value, at, { required: ['table', 'columns', 'rows'], optional: TEMPLATE_KEYS });
  if (record === undefined) return undefined;
  const before = shape.problems.length;
  const table = shape.string(record.table, [...at, 'table'], { nonEmpty: true });
  const columns = readColumns(record.columns, [...at, 'columns'], shape);
  const template: Record<string, unknown> = {};
  for (const key of TEMPLATE_KEYS) if (record[key] !== undefined) template[key] = record[key];
  if (template.expect === undefined) template.expect = { allowed: '$allowed' };
  if (columns !== undefined) {
    if (record.expect === undefined && !columns.includes('allowed')) {
      shape.fail([...at, 'columns'], 'needs a column `allowed` (the decision each row expects), or the table an `expect` that uses its columns');
    }
    checkPlaceholders(template, columns, at, shape, record.expect === undefined);
  }
  const rows = shape.list(record.rows, [...at, 'rows']);
  if (rows !== undefined && rows.length === 0) shape.fail([...at, 'rows'], 'holds no row');
  if (table === undefined || columns === undefined || rows === undefined || shape.problems.length > before) return undefined;

  const expanded: TableRow[] = [];
  rows.forEach((row, index) => {
    const where = [...at, 'rows', index];
    const values = readRow(row, columns, where, shape);
    if (values === undefined) return;
    const name = shape.string(values.get('name'), Array.isArray(row) ? [...where, columns.indexOf('name')] : [...where, 'name'], { nonEmpty: true });
    if (name === undefined) return;
    const filled = fill(template, values) as Record<string, unknown>;
    expanded.push({ test: { name: `${table}: ${name}`, ...filled }, at: where, table, row: name });
  });
  return expanded;
}

function readColumns(value: unknown, at: readonly PathSegment[], shape: Shape): string[] | undefined {
  const list = shape.list(value, at);
  if (list === undefined) return undefined;
  const before = shape.problems.length;
  const columns: string[] = [];
  list.forEach((item, index) => {
    const column = shape.string(item, [...at, index], { pattern: COLUMN, hint: 'is not a column name: a letter or `_`, then letters, digits, `_` and `-`' });
    if (column === undefined) return;
    if (columns.includes(column)) shape.fail([...at, index], `repeats the column \`${column}\``);
    columns.push(column);
  });
  if (!columns.includes('name')) shape.fail(at, 'needs a column `name`: it names the test of each row');
  return shape.problems.length > before ? undefined : columns;
}

/** Every `$x` of the template names a column, and every column but `name` is used somewhere. */
function checkPlaceholders(template: Record<string, unknown>, columns: readonly string[], at: readonly PathSegment[], shape: Shape, defaultExpect: boolean): void {
  const used = new Set<string>();
  const visit = (value: unknown, path: readonly PathSegment[]) => {
    if (typeof value === 'string') {
      const column = PLACEHOLDER.exec(value)?.[1];
      if (column === undefined) return;
      used.add(column);
      if (columns.includes(column)) return;
      // The default `expect` is not written anywhere; its missing `allowed` column was reported above.
      if (defaultExpect && path[0] === 'expect') return;
      const closest = closestName(column, columns);
      // The column it was meant to be is not reported again as unused.
      if (closest !== null) used.add(closest);
      const hint = closest === null ? `the columns are ${columns.map((c) => `\`${c}\``).join(', ')}` : `did you mean \`$${closest}\`?`;
      shape.fail([...at, ...path], `\`$${column}\` names no column (${hint}); write \`$$\` for a \`$\` of its own`);
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, [...path, index]));
    else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
  };
  visit(template, []);
  columns.forEach((column, index) => {
    if (column !== 'name' && !used.has(column)) shape.fail([...at, 'columns', index], `the column \`${column}\` is used nowhere: no \`$${column}\` in the table`);
  });
}

/** A row as column → value: a list in the order of `columns`, or a mapping with exactly the columns as keys. */
function readRow(row: unknown, columns: readonly string[], at: readonly PathSegment[], shape: Shape): Map<string, unknown> | undefined {
  if (Array.isArray(row)) {
    if (row.length !== columns.length) return shape.fail(at, `has ${row.length} value${row.length === 1 ? '' : 's'}, the table ${columns.length} columns (${columns.join(', ')})`);
    return new Map(columns.map((column, index) => [column, row[index]]));
  }
  const before = shape.problems.length;
  const record = shape.record(row, at, { required: columns });
  // A row missing a column is not played: its test would only repeat the problem.
  if (record === undefined || shape.problems.length > before) return undefined;
  return new Map(columns.map((column) => [column, record[column]]));
}

/** The template with each `$column` replaced by the row's value (of any type), and `$$…` by `$…`. */
function fill(value: unknown, row: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === 'string') {
    const column = PLACEHOLDER.exec(value)?.[1];
    if (column !== undefined && row.has(column)) return row.get(column);
    return value.startsWith('$$') ? value.slice(1) : value;
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, row));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, row)]));
  return value;
}
