import { componentSchema, interfaceSchema, pepInterfaceSchema, policyIdSchema, policySchema, problemSchema, timerIdSchema, timerSchema } from '@custos/contracts';
import { jwtBearerScheme, serviceDocument } from '@custos/service-kit';
import { CONSOLE_ROUTES } from './console/routes';
import { PAP_ROUTES } from './routes/table';

/** OpenAPI 3.1 description of everything pap-service serves (api.md §4, §5): its operations come from the route tables. */

const TAGS = [
  { name: 'components', description: 'PEPs, PIPs and PXPs of a solution' },
  { name: 'policies', description: 'policies and their deployment' },
  { name: 'timers', description: 'timers and their deployment' },
  { name: 'audit', description: 'the audit trail of management, auth\'s records merged (scope `audit:read`)' },
];
const tagOf = (path: string) =>
  path.startsWith('/ws/component') ? 'components' : path.startsWith('/ws/policy') ? 'policies' : path.startsWith('/ws/timer') ? 'timers' : 'operations';

const { componentInterfaces, ...envelope } = componentSchema.properties;

export const openapi = serviceDocument({
  info: {
    title: 'Custos pap-service',
    version: '0.1.0',
    description:
      'Policy administration: components, policies and the deployed set. Every change of the deployed set gets a ' +
      'new gap-free revision (header `Policy-Revision`) and reaches the decision points through NATS.',
  },
  tags: TAGS,
  operations: 'health, replicas, console, documentation',
  tagOf,
  readiness: 'Ready when the database answers; reports the NATS connection state (pap stays ready without NATS: the outbox keeps changes).',
  routes: [...PAP_ROUTES, ...CONSOLE_ROUTES],
  components: {
    securitySchemes: {
      bearer: jwtBearerScheme('an access token of auth-service'),
    },
    headers: {
      RetryAfter: { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
      PolicyRevision: {
        description: 'the revision of the deployed set at which the call took effect (the current one when nothing changed)',
        schema: { type: 'integer', minimum: 0 },
      },
    },
    schemas: {
      Problem: problemSchema,
      // The envelope pap validates first, with the interface shapes it checks next for the component's type.
      Component: {
        type: 'object',
        required: componentSchema.required,
        additionalProperties: false,
        properties: {
          ...envelope,
          componentInterfaces: {
            type: 'array',
            maxItems: componentInterfaces.maxItems,
            description: '`PepInterfaceDescription`s for a PEP, `InterfaceDescription`s for a PIP or PXP',
            items: { oneOf: [{ $ref: '#/components/schemas/PepInterfaceDescription' }, { $ref: '#/components/schemas/InterfaceDescription' }] },
          },
        },
      },
      PepInterfaceDescription: pepInterfaceSchema,
      InterfaceDescription: interfaceSchema,
      PolicyId: policyIdSchema,
      TimerId: timerIdSchema,
      Timer: timerSchema,
      Policy: policySchema,
    },
  },
});
