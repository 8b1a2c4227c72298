import type { Diagnostic } from '../api';
import { diagnostic, excerpt } from '../diagnostics';
import { LineIndex } from './line-index';
import { XML_LIMITS } from './limits';

/** A start tag as written, with the offsets that give elements and attributes their columns. */
export interface ScannedTag {
  readonly qualifiedName: string;
  readonly offset: number;
  readonly attributes: readonly ScannedAttribute[];
}

export interface ScannedAttribute {
  readonly qualifiedName: string;
  readonly offset: number;
}

/** `xmlns="uri"` (prefix '') or `xmlns:p="uri"`, as written (for advice about undeclared prefixes). */
export interface ScannedDeclaration {
  readonly prefix: string;
  readonly uri: string;
}

export type PrescanOutcome =
  | {
      ok: true;
      lines: LineIndex;
      tags: ScannedTag[];
      /** Every namespace declaration of the scanned tags, in document order. */
      declarations: ScannedDeclaration[];
      /** Where the text after the first top-level element begins; null when that element never closed. */
      rootEnd: number | null;
      /** False when the text stopped following XML syntax somewhere; the XML library then reports where. */
      complete: boolean;
    }
  | { ok: false; diagnostic: Diagnostic };

/**
 * A linear lexical pass over the raw text, run before the XML library sees it. It is the line that must hold:
 * any DOCTYPE or other markup declaration is refused here (libxmljs2 can abort the whole process on entity
 * documents), and the size, depth, element-count and attribute-length limits are enforced without building a tree.
 * It also records where each start tag and attribute is, because libxmljs2 only knows line numbers.
 */
export function prescan(text: string): PrescanOutcome {
  if (text.length > XML_LIMITS.maxBytes || Buffer.byteLength(text, 'utf8') > XML_LIMITS.maxBytes) {
    return refuse(diagnostic('document_too_large', `the document is larger than ${XML_LIMITS.maxBytes} bytes`));
  }
  const lines = new LineIndex(text);
  // The native parser reads a C string: a NUL would silently cut the document short.
  const nul = text.indexOf('\u0000');
  if (nul >= 0) return refuse(diagnostic('malformed_xml', 'the document contains a nul character', lines.locate(nul)));
  const scanned = scanMarkup(text, lines);
  if (!scanned.ok) return scanned;
  // Declarations the scan could not see (inside comments, or past a point where it lost the syntax) are refused too.
  const entity = text.indexOf('<!ENTITY');
  if (entity >= 0) {
    return refuse(diagnostic('entity_forbidden', 'entity declarations are not allowed', lines.locate(entity)));
  }
  const doctype = scanned.complete ? -1 : text.indexOf('<!DOCTYPE');
  if (doctype >= 0) return refuse(doctypeForbidden(lines, doctype));
  return scanned;
}

function doctypeForbidden(lines: LineIndex, offset: number): Diagnostic {
  return diagnostic('doctype_forbidden', 'a document type declaration (DOCTYPE) is not allowed', lines.locate(offset));
}

function scanMarkup(text: string, lines: LineIndex): PrescanOutcome {
  const tags: ScannedTag[] = [];
  const declarations: ScannedDeclaration[] = [];
  let rootEnd: number | null = null;
  const incomplete = (): PrescanOutcome => ({ ok: true, lines, tags, declarations, rootEnd, complete: false });
  let depth = 0;
  let position = 0;
  for (;;) {
    const open = text.indexOf('<', position);
    if (open < 0) return { ok: true, lines, tags, declarations, rootEnd, complete: true };
    if (text.startsWith('<!--', open)) {
      const end = text.indexOf('-->', open + 4);
      if (end < 0) return incomplete();
      position = end + 3;
    } else if (text.startsWith('<![CDATA[', open)) {
      const end = text.indexOf(']]>', open + 9);
      if (end < 0) return incomplete();
      position = end + 3;
    } else if (text.startsWith('<!DOCTYPE', open)) {
      return refuse(doctypeForbidden(lines, open));
    } else if (text.startsWith('<!ENTITY', open)) {
      return refuse(diagnostic('entity_forbidden', 'entity declarations are not allowed', lines.locate(open)));
    } else if (text.startsWith('<!', open)) {
      const declaration = excerpt(/^<![^\s>]*/.exec(text.slice(open, open + 50))?.[0] ?? '<!', 20);
      return refuse(
        diagnostic('markup_declaration_forbidden', `markup declaration \`${declaration}\` is not allowed`, lines.locate(open)),
      );
    } else if (text.startsWith('<?', open)) {
      const end = text.indexOf('?>', open + 2);
      if (end < 0) return incomplete();
      position = end + 2;
    } else if (text.startsWith('</', open)) {
      const end = text.indexOf('>', open + 2);
      if (end < 0) return incomplete();
      depth -= 1;
      position = end + 1;
      if (depth === 0) rootEnd ??= position;
    } else {
      const tag = scanStartTag(text, open);
      if (tag === null) return incomplete();
      if (tag.attributes.length > XML_LIMITS.maxAttributesPerElement) {
        return refuse(
          diagnostic(
            'too_many_attributes',
            `element \`${excerpt(tag.qualifiedName)}\` has more than ${XML_LIMITS.maxAttributesPerElement} attributes`,
            lines.locate(open),
          ),
        );
      }
      const tooLong = tag.attributes.find((attribute) => attribute.valueLength > XML_LIMITS.maxAttributeValueLength);
      if (tooLong !== undefined) {
        return refuse(
          diagnostic(
            'attribute_too_large',
            `the value of attribute \`${excerpt(tooLong.qualifiedName)}\` is longer than ${XML_LIMITS.maxAttributeValueLength} characters`,
            lines.locate(tooLong.offset),
          ),
        );
      }
      if (tags.length >= XML_LIMITS.maxElements) {
        return refuse(
          diagnostic('too_many_elements', `the document has more than ${XML_LIMITS.maxElements} elements`, lines.locate(open)),
        );
      }
      if (depth + 1 > XML_LIMITS.maxDepth) {
        return refuse(
          diagnostic('too_deep', `elements are nested deeper than ${XML_LIMITS.maxDepth} levels`, lines.locate(open)),
        );
      }
      tags.push({ qualifiedName: tag.qualifiedName, offset: open, attributes: tag.attributes });
      for (const attribute of tag.attributes) {
        const name = attribute.qualifiedName;
        if (name === 'xmlns' || name.startsWith('xmlns:')) {
          declarations.push({ prefix: name.slice(6), uri: text.slice(attribute.valueOffset, attribute.valueOffset + attribute.valueLength) });
        }
      }
      if (!tag.selfClosing) depth += 1;
      else if (depth === 0) rootEnd ??= tag.end;
      position = tag.end;
    }
  }
}

interface StartTag {
  qualifiedName: string;
  attributes: Array<ScannedAttribute & { valueOffset: number; valueLength: number }>;
  selfClosing: boolean;
  end: number;
}

/** Reads `<name attr="value" ...>` or `.../>` at `open`; null when the text is not a well-formed start tag. */
function scanStartTag(text: string, open: number): StartTag | null {
  let index = open + 1;
  while (index < text.length && !isNameEnd(text.charCodeAt(index))) index += 1;
  if (index === open + 1) return null;
  const qualifiedName = text.slice(open + 1, index);
  const attributes: StartTag['attributes'] = [];
  for (;;) {
    index = skipSpaces(text, index);
    if (text.startsWith('>', index)) return { qualifiedName, attributes, selfClosing: false, end: index + 1 };
    if (text.startsWith('/>', index)) return { qualifiedName, attributes, selfClosing: true, end: index + 2 };
    const nameStart = index;
    while (index < text.length && !isNameEnd(text.charCodeAt(index))) index += 1;
    if (index === nameStart) return null;
    const attributeName = text.slice(nameStart, index);
    index = skipSpaces(text, index);
    if (text[index] !== '=') return null;
    index = skipSpaces(text, index + 1);
    const quote = text[index];
    if (quote !== '"' && quote !== "'") return null;
    const close = text.indexOf(quote, index + 1);
    if (close < 0) return null;
    attributes.push({ qualifiedName: attributeName, offset: nameStart, valueOffset: index + 1, valueLength: close - index - 1 });
    index = close + 1;
  }
}

const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const GREATER = 0x3e;

function isSpace(code: number): boolean {
  return code === SPACE || code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN;
}

function isNameEnd(code: number): boolean {
  return isSpace(code) || code === SLASH || code === GREATER || code === EQUALS;
}

function skipSpaces(text: string, from: number): number {
  let index = from;
  while (index < text.length && isSpace(text.charCodeAt(index))) index += 1;
  return index;
}

function refuse(problem: Diagnostic): PrescanOutcome {
  return { ok: false, diagnostic: problem };
}
