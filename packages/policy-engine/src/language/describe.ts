import { CATALOGUE, FAMILIES, type ElementInfo } from '../ast/catalogue';
import type { ElementNode } from '../ast/nodes';
import { conventionalNamespace } from '../parse/namespaces';
import { attributeRulesOf } from '../validate/attribute-rules';
import { contentModelOf, type Slot } from '../validate/content-models';
import { isExpression } from '../validate/pass';
import { ATTRIBUTE_DOCS, ELEMENT_DOCS, type DocumentedElement } from './docs';

/**
 * The policy language as the engine accepts it, as data for editors: every element with its namespace, attributes
 * and content. It is read off the engine's own tables — the catalogue, the content models the structure pass checks
 * and the attribute rules the attributes pass checks — so it says what loadPolicy accepts; only the help texts
 * (docs.ts) are written for it. The XSD (xsd.ts), pap's `/schema` routes and the console's completion use it.
 */
export interface LanguageDescription {
  /** The namespaces of a 4.0 policy by their conventional prefix ('' for the language's own). */
  readonly namespaces: ReadonlyArray<{ readonly prefix: string; readonly uri: string }>;
  /** The root element. */
  readonly root: 'policy';
  readonly elements: readonly LanguageElement[];
}

export interface LanguageElement {
  /** As written with the conventional prefixes: `mechanism`, `event:string`. */
  readonly name: string;
  /** The conventional prefix ('' for the language namespace). */
  readonly prefix: string;
  readonly localName: string;
  readonly doc: string;
  readonly attributes: readonly LanguageAttribute[];
  /** The children, in order: each slot takes `min` to `max` (null: unbounded) of its elements. */
  readonly content: readonly ContentSlot[];
}

export interface LanguageAttribute {
  readonly name: string;
  readonly required: boolean;
  /** The only values accepted, when the language has a closed list. */
  readonly values?: readonly string[];
  readonly doc: string;
}

export interface ContentSlot {
  /** Names of the elements the slot accepts. */
  readonly elements: readonly string[];
  /** `expression` when it accepts any expression (the XSD's group of that name). */
  readonly group: 'expression' | null;
  readonly min: number;
  readonly max: number | null;
}

/** A node standing for an element of the catalogue, to ask a content model's slots which elements they accept. */
const probe = (info: ElementInfo): ElementNode => ({ name: info.name, info, location: { line: 0 }, attributes: new Map(), children: [] });

const PROBES: readonly ElementNode[] = [...CATALOGUE.values()].map(probe);
const EXPRESSIONS: ReadonlySet<string> = new Set(PROBES.filter(isExpression).map((node) => node.name));

function slot(of: Slot): ContentSlot {
  const elements = PROBES.filter((node) => of.accepts(node)).map((node) => node.name);
  const group = elements.length === EXPRESSIONS.size && elements.every((name) => EXPRESSIONS.has(name)) ? 'expression' : null;
  return { elements, group, min: of.min, max: of.max === Infinity ? null : of.max };
}

function documented(info: ElementInfo): DocumentedElement {
  return info.family === null || info.name === 'constant:true' || info.name === 'constant:false' ? (info.name as DocumentedElement) : info.family;
}

function describeElement(info: ElementInfo): LanguageElement {
  const key = documented(info);
  const typed = (text: string): string => (info.declaredType === null ? text : text.replace(/\bT\b/g, info.declaredType));
  const attributes = [...attributeRulesOf(info.name)].map(([name, rule]): LanguageAttribute => {
    const doc = ATTRIBUTE_DOCS[key][name];
    if (doc === undefined) throw new Error(`bug: attribute \`${name}\` of \`${info.name}\` has no help text`);
    return { name, required: rule.required, ...(rule.values === undefined ? {} : { values: rule.values }), doc: typed(doc) };
  });
  const [prefix, localName] = info.family === null ? ['', info.name] : [info.family, info.name.slice(info.family.length + 1)];
  return { name: info.name, prefix, localName, doc: typed(ELEMENT_DOCS[key]), attributes, content: contentModelOf(info).map(slot) };
}

let described: LanguageDescription | null = null;

/** The language description (built once; a frozen-by-convention plain JSON value). */
export function describePolicyLanguage(): LanguageDescription {
  described ??= {
    namespaces: ['', ...FAMILIES].map((prefix) => ({
      prefix,
      uri: namespaceOf(prefix, '4.0'),
    })),
    root: 'policy',
    elements: [...CATALOGUE.values()].map(describeElement),
  };
  return described;
}

/** The namespace of a conventional prefix in one version of the language. */
export function namespaceOf(prefix: string, version: '4.0' | '3.2.46'): string {
  const uri = conventionalNamespace(prefix, 'policy', version);
  if (uri === null) throw new Error(`bug: \`${prefix}\` is no prefix of the language`);
  return uri;
}
