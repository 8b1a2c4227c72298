import type { Element as LibxmlElement, Node as LibxmlNode } from 'libxmljs2';
import type { Diagnostic } from '../api';
import { diagnostic, type SourceLocation } from '../diagnostics';
import { libxml } from './libxml';
import { isLibxmlError } from './libxml-errors';
import { LIBXML_OPTIONS, XML_LIMITS } from './limits';
import type { LineIndex } from './line-index';
import { prescan, type ScannedTag } from './prescan';
import { collectedErrorDiagnostics, fatalErrorDiagnostic } from './read-errors';
import type { XmlAttribute, XmlElement, XmlNode } from './xml-tree';

export type ReadXmlOutcome = { ok: true; root: XmlElement } | { ok: false; diagnostics: Diagnostic[] };

/** Hardened reading: prescan (DOCTYPE, entities, limits) → libxmljs2 → a plain located tree. */
export function readXml(text: string): ReadXmlOutcome {
  if (text.trim() === '') return refuse([diagnostic('empty_document', 'the document is empty')]);
  const scan = prescan(text);
  if (!scan.ok) return refuse([scan.diagnostic]);

  let document;
  try {
    document = libxml().parseXml(text, LIBXML_OPTIONS);
  } catch (error) {
    // libxmljs2 reports the first fatal error by throwing; that is its answer to bad input, not a bug of ours.
    return refuse([fatalErrorDiagnostic(error, text, scan)]);
  }
  const errors = document.errors.filter(isLibxmlError);
  if (errors.length > 0) return refuse(collectedErrorDiagnostics(errors, scan));
  const root = document.root();
  if (root === null) return refuse([diagnostic('empty_document', 'the document has no root element')]);

  const converter = new TreeConverter(scan.complete ? scan.tags : null, scan.lines);
  const converted = converter.element(root, 1);
  return converter.problem === null ? { ok: true, root: converted } : refuse([converter.problem]);
}

/**
 * Copies the libxmljs2 DOM into plain objects. Elements arrive in document order, the same order as the prescan's
 * start tags, which is how each element gets its column. The limits are checked again as a second line.
 */
class TreeConverter {
  problem: Diagnostic | null = null;
  private elementCount = 0;

  constructor(
    private readonly tags: readonly ScannedTag[] | null,
    private readonly lines: LineIndex,
  ) {}

  element(node: LibxmlElement, depth: number): XmlElement {
    const tag = this.tags?.[this.elementCount];
    this.elementCount += 1;
    const namespace = node.namespace();
    const prefix = namespace?.prefix() ?? '';
    const localName = node.name();
    const qualifiedName = prefix === '' ? localName : `${prefix}:${localName}`;
    const location = tag?.qualifiedName === qualifiedName ? this.lines.locate(tag.offset) : { line: node.line() };
    if (depth > XML_LIMITS.maxDepth) this.fail('too_deep', `elements are nested deeper than ${XML_LIMITS.maxDepth} levels`, location);
    if (this.elementCount > XML_LIMITS.maxElements) {
      this.fail('too_many_elements', `the document has more than ${XML_LIMITS.maxElements} elements`, location);
    }
    const attributes = node.attrs().map((attribute): XmlAttribute => {
      const attributePrefix = attribute.namespace()?.prefix() ?? '';
      const attributeName = attribute.name();
      const attributeQualifiedName = attributePrefix === '' ? attributeName : `${attributePrefix}:${attributeName}`;
      const scanned = tag?.attributes.find((candidate) => candidate.qualifiedName === attributeQualifiedName);
      const value = attribute.value();
      if (value.length > XML_LIMITS.maxAttributeValueLength) {
        this.fail('attribute_too_large', `an attribute value is longer than ${XML_LIMITS.maxAttributeValueLength} characters`, location);
      }
      return {
        namespaceUri: attribute.namespace()?.href() ?? null,
        localName: attributeName,
        qualifiedName: attributeQualifiedName,
        value,
        location: scanned === undefined ? location : this.lines.locate(scanned.offset),
      };
    });
    const children: XmlNode[] = [];
    if (this.problem === null) {
      for (const child of node.childNodes()) {
        const converted = this.child(child, depth + 1, location);
        if (converted !== null) children.push(converted);
        if (this.problem !== null) break;
      }
    }
    return {
      kind: 'element',
      namespaceUri: namespace?.href() ?? null,
      localName,
      qualifiedName,
      attributes,
      children,
      location,
    };
  }

  private child(node: LibxmlNode, depth: number, parentLocation: SourceLocation): XmlNode | null {
    const type: string = node.type();
    if (type === 'element') return this.element(node as LibxmlElement, depth);
    if (type === 'text' || type === 'cdata') {
      // Safe to read: without a DOCTYPE there is no entity that could expand.
      const text = (node as LibxmlNode & { text(): string }).text();
      const line = node.line();
      return { kind: 'text', text, location: line > 0 ? { line } : parentLocation };
    }
    return null;
  }

  private fail(code: string, message: string, location: SourceLocation): void {
    this.problem ??= diagnostic(code, message, location);
  }
}

function refuse(diagnostics: Diagnostic[]): ReadXmlOutcome {
  return { ok: false, diagnostics };
}
