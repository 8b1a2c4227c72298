import type { Diagnostic } from '../api';
import { CATALOGUE } from '../ast/catalogue';
import type { AttributeNode, ElementNode } from '../ast/nodes';
import { diagnostic, excerpt } from '../diagnostics';
import type { XmlElement } from '../xml/xml-tree';
import { closestName, didYouMean } from '../closest-name';
import {
  ENFORCEMENT_LANGUAGE_3_0_25,
  IGNORED_ATTRIBUTE_NAMESPACES,
  KNOWN_NAMESPACES,
  LANGUAGE_NAMESPACE,
  isEnforcementLanguage3025,
  namespaceRole,
} from './namespaces';

export type ParseOutcome =
  | { ok: true; policy: ElementNode; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * DOM → syntax tree, namespace-aware. Elements outside the language are reported and left out of the tree (so the
 * passes after this one never see them); everything known is kept as written, valid or not.
 */
export function parsePolicy(root: XmlElement): ParseOutcome {
  if (isEnforcementLanguage3025(root.namespaceUri)) {
    return {
      ok: false,
      diagnostics: [
        diagnostic(
          'unsupported_language',
          `namespace \`${ENFORCEMENT_LANGUAGE_3_0_25}\` is the ind2uce 3.0.25 enforcement language, a different language that is not supported; write the policy in \`${LANGUAGE_NAMESPACE}\``,
          root.location,
        ),
      ],
    };
  }
  if (namespaceRole(root.namespaceUri) !== 'language' || root.localName !== 'policy') {
    return {
      ok: false,
      diagnostics: [
        diagnostic(
          'wrong_root',
          `the root element must be \`policy\` in namespace \`${LANGUAGE_NAMESPACE}\`, found ${describeXmlName(root)}`,
          root.location,
        ),
      ],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const policy = toNode(root, diagnostics);
  return policy === null ? { ok: false, diagnostics } : { ok: true, policy, diagnostics };
}

export function toNode(element: XmlElement, diagnostics: Diagnostic[]): ElementNode | null {
  const name = languageName(element);
  const info = name === null ? undefined : CATALOGUE.get(name);
  if (name === null || info === undefined) {
    diagnostics.push(diagnostic('unknown_element', `unknown element ${describeXmlName(element)}${suggestionFor(element)}`, element.location));
    return null;
  }
  const children: ElementNode[] = [];
  let incomplete = false;
  for (const child of element.children) {
    if (child.kind === 'text') {
      if (child.text.trim() !== '') {
        diagnostics.push(
          diagnostic('unexpected_text', `unexpected text \`${excerpt(child.text.trim(), 20)}\` in \`${name}\``, child.location),
        );
      }
      continue;
    }
    const node = toNode(child, diagnostics);
    if (node !== null) children.push(node);
    else incomplete = true;
  }
  const node: ElementNode = { name: info.name, info, location: element.location, attributes: attributesOf(element), children };
  return incomplete ? { ...node, incomplete } : node;
}

/** `mechanism`, `event:string` …: the conventional spelling, whatever prefix the author chose. */
function languageName(element: XmlElement): string | null {
  const role = namespaceRole(element.namespaceUri);
  if (role === null) return null;
  return role === 'language' ? element.localName : `${role}:${element.localName}`;
}

function attributesOf(element: XmlElement): ReadonlyMap<string, AttributeNode> {
  const attributes = new Map<string, AttributeNode>();
  for (const attribute of element.attributes) {
    if (attribute.namespaceUri !== null && IGNORED_ATTRIBUTE_NAMESPACES.has(attribute.namespaceUri)) continue;
    const name = attribute.namespaceUri === null ? attribute.localName : attribute.qualifiedName;
    attributes.set(name, { name, value: attribute.value, location: attribute.location });
  }
  return attributes;
}

function describeXmlName(element: XmlElement): string {
  const role = namespaceRole(element.namespaceUri);
  if (role !== null) return `\`${role === 'language' ? element.localName : `${role}:${element.localName}`}\``;
  if (element.namespaceUri === null) return `\`${element.localName}\` (no namespace)`;
  return `\`${element.localName}\` in namespace \`${element.namespaceUri}\``;
}

/** The language element or namespace an unknown element was most likely meant to be, as ``; did you mean …?``. */
function suggestionFor(element: XmlElement): string {
  const role = namespaceRole(element.namespaceUri);
  if (role === 'language') return didYouMean(element.localName, LANGUAGE_ELEMENTS);
  if (role !== null) {
    const closest = closestName(element.localName, FAMILY_ELEMENTS.get(role) ?? []);
    return closest === null ? '' : `; did you mean \`${role}:${closest}\`?`;
  }
  if (element.namespaceUri === null) return didYouMean(element.localName, LANGUAGE_ELEMENTS);
  const namespace = closestName(element.namespaceUri, KNOWN_NAMESPACES);
  return namespace === null ? '' : `; did you mean namespace \`${namespace}\`?`;
}

/** Names of the core namespace's elements, and of each family's by family (`string` for `event:string`). */
const LANGUAGE_ELEMENTS: readonly string[] = [...CATALOGUE.keys()].filter((name) => !name.includes(':'));
const FAMILY_ELEMENTS: ReadonlyMap<string, readonly string[]> = (() => {
  const families = new Map<string, string[]>();
  for (const name of CATALOGUE.keys()) {
    const colon = name.indexOf(':');
    if (colon < 0) continue;
    const family = name.slice(0, colon);
    families.set(family, [...(families.get(family) ?? []), name.slice(colon + 1)]);
  }
  return families;
})();
