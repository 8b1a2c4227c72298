import { Type, type Static } from '@sinclair/typebox';
import { oneOfValues, text } from './schema-kit';

/**
 * The Component body of api.md §4, strictly: unknown fields are errors, and interface shapes depend on the
 * component type. pap checks a body in two schema stages (the envelope, then the interfaces against the type's
 * shape) and then by `componentRuleErrors` (component-schema.ts), the rules JSON Schema cannot state.
 */
export const COMPONENT_TYPES = ['PEP', 'PIP', 'PXP'] as const;
export const componentTypeSchema = oneOfValues(COMPONENT_TYPES);
export type ComponentType = Static<typeof componentTypeSchema>;

const parameterFields = {
  name: text(256, 1),
  description: Type.Optional(text(4096)),
  type: text(512, 1),
};

/** A parameter of a PIP's or PXP's method; a PEP's have no `mandatory`. */
const interfaceParameterSchema = Type.Object({ ...parameterFields, mandatory: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
export type InterfaceParameter = Static<typeof interfaceParameterSchema>;

export const pepInterfaceSchema = Type.Object(
  {
    type: oneOfValues(['PepInterfaceDescription']),
    event: Type.Object({ platform: text(512), context: text(512), action: text(512) }, { additionalProperties: false }),
    preventive: Type.Boolean(),
    methodName: text(512, 1),
    returnType: text(512),
    description: Type.Optional(text(4096)),
    parameters: Type.Array(Type.Object(parameterFields, { additionalProperties: false }), { maxItems: 256 }),
  },
  { additionalProperties: false },
);
export type PepInterfaceDescription = Static<typeof pepInterfaceSchema>;

export const interfaceSchema = Type.Object(
  {
    type: oneOfValues(['InterfaceDescription']),
    methodName: text(512, 1),
    returnType: text(512),
    description: Type.Optional(text(4096)),
    parameters: Type.Array(interfaceParameterSchema, { maxItems: 256 }),
  },
  { additionalProperties: false },
);
export type InterfaceDescription = Static<typeof interfaceSchema>;

/** The envelope: its interfaces are objects here, checked against the shape of the component's type next. */
export const componentSchema = Type.Object(
  {
    id: Type.Object({ componentType: componentTypeSchema, identifier: text(512, 1) }, { additionalProperties: false }),
    urls: Type.Array(text(2048, 1), { minItems: 1, maxItems: 32 }),
    componentInterfaces: Type.Array(Type.Unsafe<PepInterfaceDescription | InterfaceDescription>({ type: 'object' }), { maxItems: 256 }),
  },
  { additionalProperties: false },
);
export type Component = Static<typeof componentSchema>;
