/**
 * JSON Schemas (draft 2020-12 subset that ajv compiles) of request bodies.
 * They live here because they are part of the wire contract.
 */
const TOKEN = '^[A-Za-z0-9._-]+$';

export const parameterValueSchema = {
  type: 'object',
  required: ['value'],
  properties: {
    value: {},
    type: { type: 'string', maxLength: 512 },
    isComplex: { type: 'boolean' },
  },
  additionalProperties: true,
} as const;

export const eventParameterSchema = {
  type: 'object',
  required: ['name', 'value'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 256 },
    value: parameterValueSchema,
  },
  additionalProperties: true,
} as const;

export const MAX_EVENT_PARAMETERS = 1000;

export const eventSchema = {
  type: 'object',
  required: ['actionId', 'timestamp'],
  properties: {
    actionId: {
      oneOf: [
        {
          type: 'object',
          required: ['scope', 'action'],
          properties: {
            scope: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[a-z0-9._-]+$' },
            action: { type: 'string', minLength: 1, maxLength: 256, pattern: TOKEN },
          },
        },
        {
          type: 'object',
          required: ['urn'],
          properties: {
            urn: { type: 'string', maxLength: 400, pattern: '^urn:action:[a-z0-9._-]+:[A-Za-z0-9._-]+$' },
          },
        },
      ],
    },
    timestamp: { type: 'integer', minimum: 0, maximum: 8640000000000000 },
    parameters: { type: 'array', maxItems: MAX_EVENT_PARAMETERS, items: eventParameterSchema },
  },
  additionalProperties: true,
} as const;

/** RFC 9457 problem details as every Custos error answer carries them (api.md §5), for OpenAPI documents. */
export const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', description: '`urn:custos:problem:<code>`', examples: ['urn:custos:problem:invalid_policy'] },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: {
      type: 'array',
      description: 'every problem found, located by line and column (policies) or path (JSON bodies)',
      items: {
        type: 'object',
        required: ['message'],
        properties: { message: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' }, path: { type: 'string' } },
      },
    },
  },
} as const;
