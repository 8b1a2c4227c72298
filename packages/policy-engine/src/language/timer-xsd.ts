import { conventionalNamespace } from '../parse/namespaces';
import { TIMER_ATTRIBUTES } from '../timer/timer-xml';
import { describePolicyLanguage, namespaceOf } from './describe';
import { TIMER_DOCS } from './docs';
import type { SchemaFile, SchemaVersion } from './xsd';

/** The file of the timer namespace, beside the policy files it imports `parameter.xsd` from. */
export const timerSchemaFile = (version: SchemaVersion): string => (version === '4.0' ? 'mydataLanguageTimer.xsd' : 'ind2uceLanguageTimer.xsd');

export function timerNamespace(version: SchemaVersion): string {
  const uri = conventionalNamespace('', 'timer', version);
  if (uri === null) throw new Error('bug: the timer namespace has no conventional form');
  return uri;
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const documented = (doc: string, indent: string): string => `${indent}<xs:annotation><xs:documentation>${escape(doc)}</xs:documentation></xs:annotation>\n`;

function attributes(element: 'timer' | 'event', indent: string): string {
  const docs: Readonly<Record<string, string>> = TIMER_DOCS[element].attributes;
  return Object.entries(TIMER_ATTRIBUTES[element])
    .map(([name, required]) => {
      const doc = docs[name];
      if (doc === undefined) throw new Error(`bug: timer attribute \`${name}\` of \`${element}\` has no help text`);
      return `${indent}<xs:attribute name="${name}" type="xs:string"${required ? ' use="required"' : ''}>\n${documented(doc, `${indent}  `)}${indent}</xs:attribute>\n`;
    })
    .join('');
}

/**
 * Timer documents (read-timer.ts): `timer` with one or more `event`s, each holding `parameter:*`. The parameters are
 * the policy language's (parameter.xsd); that a timer's are constants only is the reader's to say.
 */
export function timerSchema(version: SchemaVersion): SchemaFile {
  const parameters = describePolicyLanguage()
    .elements.filter((element) => element.prefix === 'parameter')
    .map((element) => `          <xs:element ref="parameter:${element.localName}"/>\n`)
    .join('');
  const text =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<!-- Custos timer documents ${version}: generated from the policy engine (custos policy schema). -->\n` +
    `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="${timerNamespace(version)}"\n` +
    `  xmlns:parameter="${namespaceOf('parameter', version)}"\n` +
    `  targetNamespace="${timerNamespace(version)}" elementFormDefault="qualified">\n` +
    `  <xs:import namespace="${namespaceOf('parameter', version)}" schemaLocation="parameter.xsd"/>\n\n` +
    `  <xs:element name="timer">\n${documented(TIMER_DOCS.timer.doc, '    ')}` +
    `    <xs:complexType>\n      <xs:sequence>\n` +
    `        <xs:element name="event" type="tns:event" maxOccurs="unbounded">\n${documented(TIMER_DOCS.event.doc, '          ')}        </xs:element>\n` +
    `      </xs:sequence>\n${attributes('timer', '      ')}    </xs:complexType>\n  </xs:element>\n\n` +
    `  <xs:complexType name="event">\n    <xs:sequence>\n        <xs:choice minOccurs="0" maxOccurs="unbounded">\n${parameters}        </xs:choice>\n    </xs:sequence>\n` +
    `${attributes('event', '    ')}  </xs:complexType>\n</xs:schema>\n`;
  return { path: `${version}/${timerSchemaFile(version)}`, text };
}
