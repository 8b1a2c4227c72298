import { Type, type Static } from '@sinclair/typebox';

/**
 * The policy language as data for editors, as pap serves it at `GET /schema/policy-language.json` (the policy
 * engine builds it from its own tables; the console completes elements and attributes and shows their help from it).
 * Element names are written with the conventional prefixes (`mechanism`, `event:string`).
 */
export const SCHEMA_PATHS = {
  language: '/schema/policy-language.json',
  /** `/schema/{version}/{file}`: the XSD files of a version of the language (`4.0`, `3.2.46`). */
  xsd: '/schema/{version}/{file}',
} as const;

const attribute = Type.Object({
  name: Type.String(),
  required: Type.Boolean(),
  values: Type.Optional(Type.Array(Type.String(), { description: 'the only values accepted, when the list is closed' })),
  doc: Type.String(),
});

const slot = Type.Object({
  elements: Type.Array(Type.String()),
  group: Type.Union([Type.Literal('expression'), Type.Null()]),
  min: Type.Integer({ minimum: 0 }),
  max: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'null: unbounded' }),
});

const element = Type.Object({
  name: Type.String(),
  prefix: Type.String({ description: "the conventional prefix, '' for the language namespace" }),
  localName: Type.String(),
  doc: Type.String(),
  attributes: Type.Array(attribute),
  content: Type.Array(slot, { description: 'the children in order, each slot with how many of which elements' }),
});

export const policyLanguageSchema = Type.Object({
  namespaces: Type.Array(Type.Object({ prefix: Type.String(), uri: Type.String() })),
  root: Type.Literal('policy'),
  elements: Type.Array(element),
});
export type PolicyLanguage = Static<typeof policyLanguageSchema>;
