/**
 * Our own XML Schema of the policy structure (policy-language.md §3–§6), embedded as text so it is found from dist/
 * at run time without reading files.
 *
 * It is written for the *normalized* document that schema-check.ts builds from the syntax tree, not for the text
 * the author sent: one element per line, no namespaces, and family elements named `family.type` (`event:string`
 * becomes `event.string`). That is what makes one schema serve every prefix choice and both the 4.0 and the 3.2.46
 * namespaces, with no imports to resolve.
 *
 * It states structure only: which elements go where, how many, in which order, and which attributes each may or
 * must have. Attribute values, expression types, URNs and references are the named semantic passes' business, which
 * report them with better messages; here every attribute is a plain string.
 */
const TYPES = ['string', 'number', 'boolean', 'object', 'list'] as const;

const optional = (name: string): string => `<xs:attribute name="${name}" type="xs:string"/>`;
const required = (name: string): string => `<xs:attribute name="${name}" type="xs:string" use="required"/>`;

/**
 * Expressions form a substitution group: content models then name one abstract `expression` instead of a choice of
 * sixty elements, which keeps the compiled schema small (libxmljs2 compiles it again at every validation).
 */
const member = (name: string): string => (EXPRESSION_ELEMENTS.includes(name) ? ' substitutionGroup="expression"' : '');

/** An element whose content is a sequence of expressions. */
const operator = (name: string, min: number, max: number | 'unbounded', attributes = ''): string => `
  <xs:element name="${name}"${member(name)}>
    <xs:complexType>
      <xs:sequence><xs:element ref="expression" minOccurs="${min}" maxOccurs="${max}"/></xs:sequence>
      ${attributes}
    </xs:complexType>
  </xs:element>`;

const empty = (name: string, attributes = ''): string => `
  <xs:element name="${name}"${member(name)}><xs:complexType>${attributes}</xs:complexType></xs:element>`;

const withParameters = (name: string, attributes: string): string => `
  <xs:element name="${name}"${member(name)}>
    <xs:complexType>
      <xs:sequence><xs:group ref="parameters"/></xs:sequence>
      ${attributes}
    </xs:complexType>
  </xs:element>`;

const EXPRESSION_ELEMENTS = [
  'and', 'or', 'xor', 'not', 'implies', 'equals', 'less', 'lessEqual', 'greater', 'greaterEqual', 'regex', 'contains',
  'eventHasParameter', 'date', 'time', 'day', 'plus', 'minus', 'multiply', 'divide', 'size', 'concat', 'count',
  'continuousOccurrence', 'execute', 'constant.true', 'constant.false',
  'constant', 'event', 'pip', 'variable', 'valueChanged',
];

/** The family elements carry their type as an attribute in the normalized document (`event:string` → `<event type="string">`). */
const typeAttribute = `<xs:attribute name="type" use="required"><xs:simpleType><xs:restriction base="xs:string">${TYPES.map(
  (type) => `<xs:enumeration value="${type}"/>`,
).join('')}</xs:restriction></xs:simpleType></xs:attribute>`;

export const POLICY_SCHEMA = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="expression" abstract="true"/>

  <xs:group name="parameters">
    <xs:sequence>
      <xs:element ref="parameter" minOccurs="0" maxOccurs="unbounded"/>
    </xs:sequence>
  </xs:group>

  <xs:complexType name="decision">
    <xs:sequence>
      <xs:choice minOccurs="0">
        <xs:element ref="allow"/>
        <xs:element ref="inhibit"/>
        <xs:element ref="modify" maxOccurs="unbounded"/>
      </xs:choice>
      <xs:element ref="delay" minOccurs="0"/>
      <xs:element ref="execute" minOccurs="0" maxOccurs="unbounded"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="branch">
    <xs:sequence>
      <xs:element ref="expression"/>
      <xs:element name="then" type="decision"/>
    </xs:sequence>
  </xs:complexType>

  <xs:element name="policy">
    <xs:complexType>
      <xs:sequence>
        <xs:element ref="variableDeclaration" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element ref="mechanism" maxOccurs="unbounded"/>
      </xs:sequence>
      ${required('id')}${optional('name')}${optional('description')}
    </xs:complexType>
  </xs:element>

  <xs:element name="mechanism">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="if" type="branch"/>
        <xs:element name="elseif" type="branch" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="else" type="decision" minOccurs="0"/>
        <xs:element ref="execute" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      ${required('event')}${optional('id')}${optional('description')}
    </xs:complexType>
  </xs:element>

  ${empty('allow', optional('reason'))}
  ${empty('inhibit', optional('reason'))}
  ${withParameters('modify', required('eventParameter') + required('method') + optional('jsonPathQuery') + optional('reason'))}
  ${empty('delay', required('amount') + required('unit'))}
  ${withParameters('execute', required('action'))}

  ${operator('and', 1, 'unbounded', optional('mode'))}
  ${operator('or', 1, 'unbounded', optional('mode'))}
  ${operator('xor', 1, 'unbounded')}
  ${operator('not', 1, 1)}
  ${operator('implies', 2, 2)}
  ${['equals', 'less', 'lessEqual', 'greater', 'greaterEqual', 'plus', 'minus', 'multiply', 'divide'].map((name) => operator(name, 2, 'unbounded')).join('')}
  ${operator('regex', 1, 'unbounded', required('regex') + optional('mode'))}
  ${operator('contains', 2, 'unbounded', optional('mode'))}
  ${operator('eventHasParameter', 1, 'unbounded', optional('mode'))}
  ${operator('size', 1, 1)}
  ${operator('concat', 1, 'unbounded')}
  ${empty('date', required('is') + required('value'))}
  ${empty('time', required('is') + required('value'))}
  ${empty('day', required('value'))}

  <xs:complexType name="history">
    <xs:sequence>
      <xs:element ref="eventOccurrence"/>
      <xs:element ref="when"/>
    </xs:sequence>
  </xs:complexType>
  <xs:element name="count" type="history" substitutionGroup="expression"/>
  <xs:element name="continuousOccurrence" substitutionGroup="expression">
    <xs:complexType>
      <xs:complexContent>
        <xs:extension base="history">
          ${required('interval')}${optional('minOccurrences')}${optional('maxOccurrences')}
        </xs:extension>
      </xs:complexContent>
    </xs:complexType>
  </xs:element>
  ${withParameters('eventOccurrence', required('event') + optional('mode'))}
  <xs:complexType name="bound">
    <xs:sequence><xs:element ref="eventOccurrence" minOccurs="0"/></xs:sequence>
    ${optional('time')}
  </xs:complexType>
  <xs:element name="when">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="start" type="bound" minOccurs="0"/>
        <xs:element name="end" type="bound" minOccurs="0"/>
      </xs:sequence>
      ${optional('fixedTime')}
    </xs:complexType>
  </xs:element>

  ${empty('constant.true')}
  ${empty('constant.false')}
  ${empty('constant', typeAttribute + required('value'))}
  ${empty('event', typeAttribute + required('eventParameter') + required('default') + optional('jsonPathQuery'))}
  ${operator('parameter', 0, 1, typeAttribute + required('name') + optional('value') + optional('jsonPathQuery'))}
  ${withParameters('pip', typeAttribute + required('method') + required('default') + optional('ttl'))}
  ${empty('variable', typeAttribute + required('reference'))}
  ${operator('variableDeclaration', 1, 1, typeAttribute + required('name'))}
  ${operator('valueChanged', 1, 1, typeAttribute + required('id') + optional('to'))}
</xs:schema>
`;
