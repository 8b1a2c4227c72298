import type { Document } from 'libxmljs2';
import { libxml } from '../../xml/libxml';
import type { Diagnostic } from '../../api';
import type { ElementNode } from '../../ast/nodes';
import { messageStyle } from '../../diagnostics';
import type { ValidationPass } from '../pass';
import { LIBXML_OPTIONS } from '../../xml/limits';
import { POLICY_SCHEMA } from './policy-schema';

let schema: Document | null = null;

/** A schema error, by the line (= element) it is reported on. */
interface SchemaError {
  readonly line: number;
  readonly message: string;
}

/**
 * Results by skeleton. libxmljs2 compiles the schema again at every validation (about 1.5 ms here), and policies of
 * one deployment mostly share a few shapes, so the answer for a shape is remembered. Bounded: cleared when full.
 */
const RESULTS = new Map<string, readonly SchemaError[]>();
const MAX_RESULTS = 1024;

/** Parsed on first use, once per process: it is our own text, so a failure here is a bug. */
function policySchema(): Document {
  schema ??= libxml().parseXml(POLICY_SCHEMA, LIBXML_OPTIONS);
  return schema;
}

/**
 * The schema pass: the policy's structure checked against our XML Schema (policy-schema.ts), an independent
 * statement of the grammar that content-models.ts and attribute-rules.ts implement. The schema sees a normalized
 * skeleton of the syntax tree — names and attribute names, one start tag per line — so line n of a schema error is
 * the n-th element of the tree, which gives it the author's line and column.
 *
 * Its job is to be the second line: a schema error is reported only where no diagnostic already concerns that
 * element, its parent or one of its children, so it speaks only when the semantic passes let a structural problem
 * through, and never repeats them. It runs after every other pass for that reason.
 */
export const schemaPass: ValidationPass = {
  name: 'schema',
  run(policy, report, reported) {
    const elements: ElementNode[] = [];
    const parents: Array<ElementNode | null> = [];
    const skeleton = normalizedDocument(policy, null, elements, parents);
    let errors = RESULTS.get(skeleton);
    if (errors === undefined) {
      errors = validateSkeleton(skeleton);
      if (RESULTS.size >= MAX_RESULTS) RESULTS.clear();
      RESULTS.set(skeleton, errors);
    }
    if (errors.length === 0) return;

    const concerned = concernedElements(elements, parents, reported);
    for (const error of errors) {
      const element = elements[error.line - 1];
      if (element === undefined || concerned.has(element)) continue;
      report('schema_violation', schemaMessage(error.message), element.location);
    }
  },
};

function validateSkeleton(skeleton: string): SchemaError[] {
  let document: Document;
  try {
    document = libxml().parseXml(skeleton, LIBXML_OPTIONS);
  } catch (error) {
    throw new Error(`bug: the normalized policy document does not parse: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (document.validate(policySchema())) return [];
  return document.validationErrors.map((error) => ({ line: typeof error.line === 'number' ? error.line : 0, message: error.message }));
}

/**
 * Elements that a diagnostic of the passes is about (located at the element or one of its attributes), with those
 * whose content model it shares: its parent, its siblings and its children.
 */
function concernedElements(elements: readonly ElementNode[], parents: ReadonlyArray<ElementNode | null>, reported: readonly Diagnostic[]): Set<ElementNode> {
  const owner = new Map<string, ElementNode>();
  const key = (line: number, column: number | undefined): string => `${line}:${column ?? 0}`;
  for (const element of elements) {
    owner.set(key(element.location.line, element.location.column), element);
    for (const attribute of element.attributes.values()) owner.set(key(attribute.location.line, attribute.location.column), element);
  }
  const concerned = new Set<ElementNode>();
  for (const item of reported) {
    const element = item.line === undefined ? undefined : owner.get(key(item.line, item.column));
    if (element === undefined) continue;
    concerned.add(element);
    for (const child of element.children) concerned.add(child);
    const parent = parents[elements.indexOf(element)];
    if (parent === null || parent === undefined) continue;
    concerned.add(parent);
    for (const sibling of parent.children) concerned.add(sibling);
  }
  return concerned;
}

/** `event:string` → `event` with `type="string"`; `constant:true` → `constant.true`: names without namespaces. */
function schemaName(node: ElementNode): { name: string; type: string | null } {
  if (node.name === 'constant:true' || node.name === 'constant:false') return { name: node.name.replace(':', '.'), type: null };
  return node.info.family === null ? { name: node.name, type: null } : { name: node.info.family, type: node.info.declaredType };
}

function normalizedDocument(node: ElementNode, parent: ElementNode | null, elements: ElementNode[], parents: Array<ElementNode | null>): string {
  elements.push(node);
  parents.push(parent);
  const { name, type } = schemaName(node);
  let attributes = type === null ? '' : ` type="${type}"`;
  for (const attribute of node.attributes.values()) {
    // A language attribute called `type` does not exist; the attributes pass reports it as unknown.
    if (attribute.name === 'type' && type !== null) continue;
    // Namespaced attributes are not part of the language; the attributes pass reports them.
    if (attribute.name.includes(':')) continue;
    // Values do not matter to the schema (every attribute is a string there): the skeleton leaves them out.
    attributes += ` ${attribute.name}=""`;
  }
  const lineBreak = elements.length === 1 ? '' : '\n';
  if (node.children.length === 0) return `${lineBreak}<${name}${attributes}/>`;
  const children = node.children.map((child) => normalizedDocument(child, node, elements, parents)).join('');
  return `${lineBreak}<${name}${attributes}>${children}</${name}>`;
}

/** libxml2's wording in our style: names in backticks, in their language spelling. */
function schemaMessage(message: string): string {
  const styled = messageStyle(message.replace(/\s+/g, ' '))
    .replace(/'([^']*)'/g, (_, name: string) => `\`${name.replace('.', ':')}\``)
    .replace(/\( ([^)]*) \)/g, (_, names: string) => `(${names.split(', ').map((name) => `\`${name.replace('.', ':')}\``).join(', ')})`)
    .replace(/\.\s+(\w)/g, (_, letter: string) => `; ${letter.toLowerCase()}`);
  return `structure: ${styled}`;
}
