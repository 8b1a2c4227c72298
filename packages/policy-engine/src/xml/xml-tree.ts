import type { SourceLocation } from '../diagnostics';

/**
 * A namespace-resolved XML tree, detached from the XML library so later stages never touch native objects.
 * Comments and processing instructions are dropped; text is kept so stray content can be reported.
 */
export interface XmlAttribute {
  readonly namespaceUri: string | null;
  readonly localName: string;
  readonly qualifiedName: string;
  readonly value: string;
  readonly location: SourceLocation;
}

export interface XmlElement {
  readonly kind: 'element';
  readonly namespaceUri: string | null;
  readonly localName: string;
  readonly qualifiedName: string;
  readonly attributes: readonly XmlAttribute[];
  readonly children: readonly XmlNode[];
  readonly location: SourceLocation;
}

export interface XmlText {
  readonly kind: 'text';
  readonly text: string;
  readonly location: SourceLocation;
}

export type XmlNode = XmlElement | XmlText;
