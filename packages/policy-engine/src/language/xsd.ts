import { FAMILIES } from '../ast/catalogue';
import { describePolicyLanguage, namespaceOf, type ContentSlot, type LanguageAttribute, type LanguageElement } from './describe';
import { timerNamespace, timerSchema, timerSchemaFile } from './timer-xsd';

/**
 * The language description as XML Schema documents, for XML editors (completion, hover, validation as you type).
 * XML Schema gives each namespace a document of its own, so a version of the language is a folder: the language
 * namespace's `mydataLanguage.xsd` (`ind2uceLanguage.xsd` for 3.2.46), which imports one file per family
 * (`event.xsd` …) from beside it, the timer documents' `mydataLanguageTimer.xsd` (timer-xsd.ts), and a `catalog.xml`
 * naming the file of each namespace. Everything in them comes from describePolicyLanguage(); the schema states what
 * the structure and attribute passes check (names, order, counts, required attributes, closed value lists) and
 * leaves types, URN forms and literals to Custos's own messages.
 */
export type SchemaVersion = '4.0' | '3.2.46';

export interface SchemaFile {
  /** Relative to the schema folder: `4.0/mydataLanguage.xsd`. */
  readonly path: string;
  readonly text: string;
}

export const SCHEMA_VERSIONS: readonly SchemaVersion[] = ['4.0', '3.2.46'];

/** The file of the language namespace, the one to point an editor at. */
export const mainSchemaFile = (version: SchemaVersion): string => (version === '4.0' ? 'mydataLanguage.xsd' : 'ind2uceLanguage.xsd');

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const annotation = (doc: string, indent: string): string =>
  `${indent}<xs:annotation><xs:documentation>${escape(doc)}</xs:documentation></xs:annotation>\n`;

const occurs = (min: number, max: number | null): string =>
  `${min === 1 ? '' : ` minOccurs="${min}"`}${max === 1 ? '' : ` maxOccurs="${max === null ? 'unbounded' : max}"`}`;

/** Every schema file of one version of the language. */
export function policySchemaFiles(version: SchemaVersion): SchemaFile[] {
  const { elements } = describePolicyLanguage();
  const byName = new Map(elements.map((element) => [element.name, element]));
  const particle = (name: string, min: number, max: number | null, indent: string): string => {
    const element = byName.get(name);
    if (element === undefined) throw new Error(`bug: \`${name}\` is in a content model but not in the language`);
    if (element.prefix !== '') return `${indent}<xs:element ref="${element.prefix}:${element.localName}"${occurs(min, max)}/>\n`;
    return `${indent}<xs:element name="${name}" type="tns:${name}"${occurs(min, max)}>\n${annotation(element.doc, `${indent}  `)}${indent}</xs:element>\n`;
  };
  const slotXml = (slot: ContentSlot, indent: string): string => {
    if (slot.group === 'expression') return `${indent}<xs:group ref="tns:expression"${occurs(slot.min, slot.max)}/>\n`;
    const [only] = slot.elements;
    if (slot.elements.length === 1 && only !== undefined) return particle(only, slot.min, slot.max, indent);
    const choices = slot.elements.map((name) => particle(name, 1, 1, `${indent}  `)).join('');
    return `${indent}<xs:choice${occurs(slot.min, slot.max)}>\n${choices}${indent}</xs:choice>\n`;
  };
  const expressions = elements.filter((element) => isExpressionMember(element, elements));
  const files: SchemaFile[] = [
    {
      path: `${version}/${mainSchemaFile(version)}`,
      text: schemaDocument(version, '', [
        `  <xs:element name="policy" type="tns:policy">\n${annotation(byName.get('policy')?.doc ?? '', '    ')}  </xs:element>\n`,
        `  <xs:group name="expression">\n    <xs:choice>\n${expressions.map((element) => particle(element.name, 1, 1, '      ')).join('')}    </xs:choice>\n  </xs:group>\n`,
        ...elements.filter((element) => element.prefix === '').map((element) => complexType(element, slotXml, `name="${element.name}"`, '  ')),
      ]),
    },
  ];
  for (const family of FAMILIES) {
    const members = elements.filter((element) => element.prefix === family);
    const declarations = members.map(
      (element) =>
        `  <xs:element name="${element.localName}">\n${annotation(element.doc, '    ')}${complexType(element, slotXml, '', '    ')}  </xs:element>\n`,
    );
    files.push({ path: `${version}/${family}.xsd`, text: schemaDocument(version, family, declarations) });
  }
  files.push(timerSchema(version), { path: `${version}/catalog.xml`, text: catalog(version) });
  return files;
}

/**
 * An OASIS XML catalog of the folder: each namespace to its file, for editors that find schemas by namespace
 * (VS Code's XML extension, Eclipse, IntelliJ, xmllint --catalogs), so policies need no schemaLocation.
 */
function catalog(version: SchemaVersion): string {
  const entries = ['', ...FAMILIES]
    .map((each) => `  <uri name="${namespaceOf(each, version)}" uri="${each === '' ? mainSchemaFile(version) : `${each}.xsd`}"/>\n`)
    .join('') + `  <uri name="${timerNamespace(version)}" uri="${timerSchemaFile(version)}"/>\n`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">\n${entries}</catalog>\n`;
}

/** Members of the expression group: what a slot accepting any expression accepts. */
function isExpressionMember(element: LanguageElement, elements: readonly LanguageElement[]): boolean {
  const group = elements.flatMap((each) => each.content).find((slot) => slot.group === 'expression');
  return group?.elements.includes(element.name) ?? false;
}

function complexType(element: LanguageElement, slotXml: (slot: ContentSlot, indent: string) => string, name: string, indent: string): string {
  const inner = `${indent}  `;
  const sequence =
    element.content.length === 0 ? '' : `${inner}<xs:sequence>\n${element.content.map((slot) => slotXml(slot, `${inner}  `)).join('')}${inner}</xs:sequence>\n`;
  const opening = name === '' ? `${indent}<xs:complexType>\n` : `${indent}<xs:complexType ${name}>\n`;
  return `${opening}${sequence}${element.attributes.map((attribute) => attributeXml(attribute, inner)).join('')}${indent}</xs:complexType>\n`;
}

function attributeXml(attribute: LanguageAttribute, indent: string): string {
  const use = attribute.required ? ' use="required"' : '';
  const doc = annotation(attribute.doc, `${indent}  `);
  if (attribute.values === undefined) return `${indent}<xs:attribute name="${attribute.name}" type="xs:string"${use}>\n${doc}${indent}</xs:attribute>\n`;
  const enumeration = attribute.values.map((value) => `<xs:enumeration value="${escape(value)}"/>`).join('');
  return (
    `${indent}<xs:attribute name="${attribute.name}"${use}>\n${doc}` +
    `${indent}  <xs:simpleType><xs:restriction base="xs:string">${enumeration}</xs:restriction></xs:simpleType>\n${indent}</xs:attribute>\n`
  );
}

/**
 * One schema document: the namespace of `prefix` ('' for the language's), every namespace of the language bound to
 * its conventional prefix (`tns` for the language's own), and the imports of the others, found beside it.
 */
function schemaDocument(version: SchemaVersion, prefix: string, body: readonly string[]): string {
  const all = ['', ...FAMILIES];
  const bindings = all.map((each) => `  xmlns:${each === '' ? 'tns' : each}="${namespaceOf(each, version)}"`).join('\n');
  const imports = all
    .filter((each) => each !== prefix)
    .map((each) => `  <xs:import namespace="${namespaceOf(each, version)}" schemaLocation="${each === '' ? mainSchemaFile(version) : `${each}.xsd`}"/>\n`)
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<!-- The Custos policy language ${version}${prefix === '' ? '' : `, namespace ${prefix}`}: generated from the policy engine (custos policy schema). -->\n` +
    `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"\n${bindings}\n` +
    `  targetNamespace="${namespaceOf(prefix, version)}" elementFormDefault="qualified">\n` +
    `${imports}\n${body.join('\n')}</xs:schema>\n`
  );
}
