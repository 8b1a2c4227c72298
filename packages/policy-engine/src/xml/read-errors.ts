import type { Diagnostic } from '../api';
import { diagnostic, sortDiagnostics, type SourceLocation } from '../diagnostics';
import { conventionalNamespace, isMydataNamespace, isNamespace3246 } from '../parse/namespaces';
import { libxmlDiagnostic, libxmlErrorDetails } from './libxml-errors';
import type { PrescanOutcome } from './prescan';

type Scan = Extract<PrescanOutcome, { ok: true }>;

/** libxml2's XML_NS_ERR_UNDEFINED_NAMESPACE: a prefix without a declaration in scope (one error per use). */
const UNDEFINED_PREFIX = 201;
/** libxml2's XML_ERR_DOCUMENT_END: something follows the root element. */
const EXTRA_CONTENT = 5;

/**
 * The errors libxml2 collected without stopping, as diagnostics that say how to fix them. An undeclared prefix is
 * reported once per prefix, where it is first used, with the declaration to add when the language uses that prefix;
 * a document that declares no mydata namespace at all gets one diagnostic at its root, not one per element.
 */
export function collectedErrorDiagnostics(errors: readonly unknown[], scan: Scan): Diagnostic[] {
  const undeclared = new Map<string, unknown>();
  const others: Diagnostic[] = [];
  for (const error of errors) {
    const { code, argument } = libxmlErrorDetails(error);
    if (code === UNDEFINED_PREFIX && argument !== undefined) {
      if (!undeclared.has(argument)) undeclared.set(argument, error);
    } else {
      others.push(libxmlDiagnostic(error));
    }
  }
  if (undeclared.size === 0) return others;
  const rootTag = scan.tags[0];
  const root = rootTag?.qualifiedName.split(':').pop() === 'timer' ? 'timer' : 'policy';
  const mydata = scan.declarations.filter((declaration) => isMydataNamespace(declaration.uri));
  const version = mydata.length > 0 && mydata.every((declaration) => isNamespace3246(declaration.uri)) ? '3.2.46' : '4.0';
  const advice = (prefix: string): string | null => {
    const uri = conventionalNamespace(prefix, root, version);
    return uri === null ? null : `\`xmlns:${prefix}="${uri}"\``;
  };

  if (mydata.length === 0) {
    const first = libxmlDiagnostic([...undeclared.values()][0]);
    const additions: string[] = [];
    const rootIsUnprefixed = rootTag !== undefined && !rootTag.qualifiedName.includes(':');
    if (rootIsUnprefixed && !scan.declarations.some((declaration) => declaration.prefix === '')) {
      additions.push(`\`xmlns="${conventionalNamespace('', root, version) ?? ''}"\``);
    }
    const unknown: string[] = [];
    for (const prefix of undeclared.keys()) {
      const addition = advice(prefix);
      if (addition === null) unknown.push(`\`${prefix}\``);
      else additions.push(addition);
    }
    let message = `${first.message}; the document declares no mydata namespace`;
    if (additions.length > 0) message += `: add ${additions.join(' ')} to the root element`;
    if (unknown.length > 0) message += `; declare the namespace${unknown.length === 1 ? '' : 's'} of ${unknown.join(', ')}`;
    const location = rootTag === undefined ? locationOf(first) : scan.lines.locate(rootTag.offset);
    return sortDiagnostics([diagnostic(first.code, message, location), ...others]);
  }

  const diagnostics = [...undeclared.entries()].map(([prefix, error]) => {
    const base = libxmlDiagnostic(error);
    const addition = advice(prefix);
    const message =
      addition === null
        ? `${base.message}; \`${prefix}\` is not a prefix of the language: declare its namespace`
        : `${base.message}; add ${addition} to the root element`;
    return diagnostic(base.code, message, firstUse(prefix, scan) ?? locationOf(base));
  });
  return sortDiagnostics([...diagnostics, ...others]);
}

/**
 * The fatal error libxml2 threw, as a diagnostic. Content after the root element (a second root, a second document)
 * is located where it starts and named as what it is.
 */
export function fatalErrorDiagnostic(error: unknown, text: string, scan: Scan): Diagnostic {
  const base = libxmlDiagnostic(error);
  const rootTag = scan.tags[0];
  if (libxmlErrorDetails(error).code !== EXTRA_CONTENT || rootTag === undefined) return base;
  const offset = scan.rootEnd === null ? null : trailingContent(text, scan.rootEnd);
  const message = `malformed xml: the document goes on after its root element \`${rootTag.qualifiedName}\` ends; send one document per request`;
  return diagnostic(base.code, message, offset === null ? locationOf(base) : scan.lines.locate(offset));
}

/** Where the first element or attribute with `prefix` starts. */
function firstUse(prefix: string, scan: Scan): SourceLocation | undefined {
  const qualified = `${prefix}:`;
  for (const tag of scan.tags) {
    if (tag.qualifiedName.startsWith(qualified)) return scan.lines.locate(tag.offset);
    const attribute = tag.attributes.find((candidate) => candidate.qualifiedName.startsWith(qualified));
    if (attribute !== undefined) return scan.lines.locate(attribute.offset);
  }
  return undefined;
}

/** The first thing after the root element that is not space, a comment or a processing instruction. */
function trailingContent(text: string, from: number): number | null {
  let index = from;
  for (;;) {
    while (index < text.length && /\s/.test(text.charAt(index))) index += 1;
    if (index >= text.length) return null;
    const end = text.startsWith('<!--', index)
      ? text.indexOf('-->', index + 4) + 3
      : text.startsWith('<?', index) && !/^<\?xml[\s?]/i.test(text.slice(index, index + 6))
        ? text.indexOf('?>', index + 2) + 2
        : -1;
    // A second XML declaration starts a second document: that is where to point.
    if (end <= index) return index;
    index = end;
  }
}

function locationOf(item: Diagnostic): SourceLocation | undefined {
  if (item.line === undefined) return undefined;
  return item.column === undefined ? { line: item.line } : { line: item.line, column: item.column };
}
