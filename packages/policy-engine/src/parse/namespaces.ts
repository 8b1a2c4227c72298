import type { Family } from '../ast/catalogue';

export const LANGUAGE_NAMESPACE = 'http://www.mydata-control.de/4.0/mydataLanguage';
const BASE_4_0 = 'http://www.mydata-control.de/4.0/';
/** The namespace of timer documents (policy-language.md §10). */
export const TIMER_NAMESPACE = 'http://www.mydata-control.de/4.0/mydataLanguageTimer';
const BASE_3_2_46 = 'http://www.iese.fraunhofer.de/ind2uce/3.2.46/';
/** `ind2uceLanguage` and `ind2uceLanguageTimer` are the twins of `mydataLanguage` and `mydataLanguageTimer`. */
const ROOT_3_2_46 = `${BASE_3_2_46}ind2uceLanguage`;
export const ENFORCEMENT_LANGUAGE_3_0_25 = 'http://www.iese.fraunhofer.de/ind2uce/3.0.25/enforcementLanguage';

/** Attributes in these namespaces are about the document, not the policy (e.g. `xsi:schemaLocation`). */
export const IGNORED_ATTRIBUTE_NAMESPACES: ReadonlySet<string> = new Set([
  'http://www.w3.org/2001/XMLSchema-instance',
  'http://www.w3.org/XML/1998/namespace',
]);

const FAMILIES: ReadonlySet<string> = new Set<Family>([
  'constant', 'event', 'parameter', 'pip', 'variable', 'variableDeclaration', 'valueChanged',
]);

/** The 4.0 namespaces of policies: the language's and each family's; what a misspelt namespace is compared with. */
export const KNOWN_NAMESPACES: readonly string[] = [LANGUAGE_NAMESPACE, ...[...FAMILIES].map((family) => BASE_4_0 + family)];

/** `language` for the core namespace, a family, or null for any namespace that holds no language element. */
export type NamespaceRole = 'language' | Family | null;

/** A 3.2.46 namespace as its 4.0 twin (the same language), any other namespace as it is. */
export function canonicalNamespace(uri: string): string {
  if (uri.startsWith(ROOT_3_2_46)) return LANGUAGE_NAMESPACE + uri.slice(ROOT_3_2_46.length);
  if (uri.startsWith(BASE_3_2_46)) return BASE_4_0 + uri.slice(BASE_3_2_46.length);
  return uri;
}

/** True for the timer namespace, 4.0 or its 3.2.46 twin. */
export function isTimerNamespace(uri: string | null): boolean {
  return uri !== null && canonicalNamespace(uri) === TIMER_NAMESPACE;
}

/** Where an element's namespace belongs; 3.2.46 namespaces are the same language and map onto their 4.0 twins. */
export function namespaceRole(uri: string | null): NamespaceRole {
  if (uri === null) return null;
  const canonical = canonicalNamespace(uri);
  if (canonical === LANGUAGE_NAMESPACE) return 'language';
  if (!canonical.startsWith(BASE_4_0)) return null;
  const family = canonical.slice(BASE_4_0.length);
  return FAMILIES.has(family) ? (family as Family) : null;
}

/** True for a namespace of the language, of timers, or a family, in 4.0 or 3.2.46. */
export function isMydataNamespace(uri: string): boolean {
  return namespaceRole(uri) !== null || isTimerNamespace(uri);
}

export function isNamespace3246(uri: string): boolean {
  return uri.startsWith(BASE_3_2_46);
}

const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';

/**
 * The namespace a prefix stands for by convention (policy-language.md §1): the families by their names, `tns` and the
 * default prefix ('') for the root's own namespace (`policy` or `timer`), `xsi` for XML Schema instances; in the 4.0
 * family or its 3.2.46 twin. Null for a prefix the language does not use.
 */
export function conventionalNamespace(prefix: string, root: 'policy' | 'timer', version: '4.0' | '3.2.46'): string | null {
  if (prefix === 'xsi') return XSI_NAMESPACE;
  const own = root === 'timer' ? TIMER_NAMESPACE : LANGUAGE_NAMESPACE;
  const canonical = prefix === '' || prefix === 'tns' ? own : FAMILIES.has(prefix) ? BASE_4_0 + prefix : null;
  if (canonical === null || version === '4.0') return canonical;
  return canonical.startsWith(LANGUAGE_NAMESPACE) ? ROOT_3_2_46 + canonical.slice(LANGUAGE_NAMESPACE.length) : BASE_3_2_46 + prefix;
}

export function isEnforcementLanguage3025(uri: string | null): boolean {
  return uri === ENFORCEMENT_LANGUAGE_3_0_25;
}
