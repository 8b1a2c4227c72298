import type { ElementSpec } from '@codemirror/lang-xml';
import { SCHEMA_PATHS, type PolicyLanguage } from '@custos/contracts';

/**
 * The policy language for the editor, from pap's description (`GET /schema/policy-language.json`, built by the
 * policy engine from the tables it checks with): element and attribute completion, and the help shown on hover.
 * Names are the conventional ones (`event:string`); a document with other prefixes gets no completion for them.
 */

type Element = PolicyLanguage['elements'][number];

/** The editor's completion schema: each element with its children, attributes (and their closed values) and help. */
export function completionSchema(language: PolicyLanguage): ElementSpec[] {
  return language.elements.map((element) => ({
    name: element.name,
    top: element.name === language.root,
    children: [...new Set(element.content.flatMap((slot) => slot.elements))],
    attributes: [
      ...element.attributes.map((attribute) => ({
        name: attribute.name,
        ...(attribute.values === undefined ? {} : { values: attribute.values }),
        completion: { detail: attribute.required ? 'required' : 'optional', info: attribute.doc },
      })),
      // The root declares the namespaces; offering them saves typing the URIs.
      ...(element.name === language.root
        ? language.namespaces.map(({ prefix, uri }) => ({ name: prefix === '' ? 'xmlns' : `xmlns:${prefix}`, values: [uri] }))
        : []),
    ],
    completion: { info: element.doc },
  }));
}

export interface Help {
  /** `mechanism` or `mechanism event`. */
  readonly title: string;
  readonly doc: string;
  /** Extra facts: required, the accepted values. */
  readonly note: string | null;
}

const NAME = /[\w:.-]/;

/** The name around `pos` in `text` (XML names: letters, digits, `: . - _`) and where it starts. */
function nameAt(text: string, pos: number): { name: string; from: number; to: number } | null {
  let from = pos;
  let to = pos;
  while (from > 0 && NAME.test(text.charAt(from - 1))) from -= 1;
  while (to < text.length && NAME.test(text.charAt(to))) to += 1;
  return from === to ? null : { name: text.slice(from, to), from, to };
}

/**
 * The help for what is under `pos`: an element's name in a start or end tag, or an attribute's name inside a start
 * tag (with the element it belongs to). Null for anything else, or a name the language does not have.
 */
export function helpAt(language: PolicyLanguage, text: string, pos: number): (Help & { from: number; to: number }) | null {
  const found = nameAt(text, pos);
  if (found === null) return null;
  const byName = new Map<string, Element>(language.elements.map((element) => [element.name, element]));
  const before = text.slice(Math.max(0, found.from - 2), found.from);
  if (before.endsWith('<') || before === '</') {
    const element = byName.get(found.name);
    return element === undefined ? null : { title: element.name, doc: element.doc, note: null, from: found.from, to: found.to };
  }
  // An attribute name: followed by `=`, inside a start tag whose name comes after the last `<` before it.
  if (!/^\s*=/.test(text.slice(found.to, found.to + 20))) return null;
  const open = text.lastIndexOf('<', found.from);
  if (open < 0 || text.slice(open, found.from).includes('>')) return null;
  const tag = /^<([\w:.-]+)/.exec(text.slice(open));
  const element = tag?.[1] === undefined ? undefined : byName.get(tag[1]);
  const attribute = element?.attributes.find((each) => each.name === found.name);
  if (element === undefined || attribute === undefined) return null;
  const values = attribute.values === undefined ? '' : ` One of ${attribute.values.join(', ')}.`;
  return {
    title: `${element.name} ${attribute.name}`,
    doc: attribute.doc,
    note: `${attribute.required ? 'Required.' : 'Optional.'}${values}`,
    from: found.from,
    to: found.to,
  };
}

/** Reads the description from pap; null when it cannot be had (the editor then works without completion). */
export async function fetchPolicyLanguage(fetchImpl: (path: string) => Promise<Response>): Promise<PolicyLanguage | null> {
  try {
    const response = await fetchImpl(SCHEMA_PATHS.language);
    if (!response.ok) return null;
    const body = (await response.json()) as Partial<PolicyLanguage> | null;
    return body !== null && Array.isArray(body.elements) && Array.isArray(body.namespaces) ? (body as PolicyLanguage) : null;
  } catch {
    return null;
  }
}
