import { Type, type Static } from '@sinclair/typebox';
import { MAX_BATCH_ITEMS } from './batch';
import { anyObject } from './schema-kit';
import { modifierType } from './schemas';

/**
 * The OpenID AuthZEN Authorization API 1.0 (final) as the pdp speaks it: the information model (§5), the Access
 * Evaluation API (§6), the Access Evaluations API (§7) and the PDP metadata (§9), HTTPS JSON binding (§10).
 * Unknown fields are ignored wherever they appear (§10.1.1), so every object schema here allows them.
 * How these map onto Custos events and decisions is in authzen-mapping.ts and docs/api.md, "AuthZEN".
 */

/** §7.1.2.1 */
export const EVALUATIONS_SEMANTICS = ['execute_all', 'deny_on_first_deny', 'permit_on_first_permit'] as const;
export type EvaluationsSemantic = (typeof EVALUATIONS_SEMANTICS)[number];

/** Names of the request `options` the pdp reads. */
export const AUTHZEN_OPTIONS = {
  /** §7.1.2.1; `execute_all` when absent. */
  evaluationsSemantic: 'evaluations_semantic',
  /**
   * Custos' own: `false` declares that the caller cannot apply modifiers, so an allowing decision that carries
   * modifiers is answered `false` (fail closed). Accepted on both evaluation endpoints; `true` when absent.
   */
  modifiersSupported: 'custos_modifiers_supported',
  /**
   * Custos' own: `true` asks for the whole context on every decision (decision id, revision, modifiers, delay and
   * the reason, if any). Without it a decision carries a context only when the PEP must act on something in it.
   */
  context: 'custos_context',
} as const;

/**
 * What the pdp puts in a decision's `context` (§5.5.1 leaves its content to the implementation). It is there only
 * when the PEP must act on it (modifiers to apply, a delay, modifiers it cannot apply) or when the request's
 * `options.custos_context` asks for it; then `modifiers` and `delay_ms` are always in it, and `decision_id` and
 * `policy_revision` when asked (they are in the `Custos-Decision-Id` and `Policy-Revision` headers anyway). A PEP
 * that does not understand it still gets a safe boolean: `decision` is true only when the event is allowed and
 * nothing in here has to be applied that the caller cannot apply.
 */
export const AUTHZEN_REASONS = {
  /** The event was allowed with modifiers, and the caller declared it cannot apply modifiers. */
  modifiersNotSupported: 'modifiers_not_supported',
  /** The event was allowed with a modifier for a parameter an AuthZEN evaluation does not have. */
  modifierTargetMissing: 'modifier_target_missing',
  /** No deployed mechanism reacted to the action: the AuthZEN default (`PDP_AUTHZEN_DEFAULT`) decided. */
  noMechanism: 'no_mechanism',
} as const;

/** What the AuthZEN endpoints answer for an action no deployed mechanism reacts to (`PDP_AUTHZEN_DEFAULT`). */
export const AUTHZEN_DEFAULTS = ['deny', 'allow'] as const;
export type AuthZenDefault = (typeof AUTHZEN_DEFAULTS)[number];


/** Default paths of §10.1 and the well-known location of §9.2. */
export const AUTHZEN_PATHS = {
  evaluation: '/access/v1/evaluation',
  evaluations: '/access/v1/evaluations',
  metadata: '/.well-known/authzen-configuration',
} as const;

/**
 * The metadata document of a pdp reached at `base` (scheme and authority, no path, query or fragment). The search
 * APIs are not offered, so their parameters are omitted (§9.1.1: absence means unsupported).
 */
export function authzenMetadata(base: string): PdpMetadata {
  const root = base.replace(/\/+$/, '');
  return {
    policy_decision_point: root,
    access_evaluation_endpoint: `${root}${AUTHZEN_PATHS.evaluation}`,
    access_evaluations_endpoint: `${root}${AUTHZEN_PATHS.evaluations}`,
  };
}

/** Whether a short-circuiting semantic stops after a decision (§7.1.2.1); `execute_all` never does. */
export function evaluationStops(semantic: EvaluationsSemantic, decision: boolean): boolean {
  if (semantic === 'deny_on_first_deny') return !decision;
  if (semantic === 'permit_on_first_permit') return decision;
  return false;
}

// ---- The requests, said once as JSON Schema (TypeBox); the types are read off them. Which entities a request
// needs depends on the endpoint and on the defaults (§7.1.1): the mapping checks that, not the schemas. ----

const propertiesSchema = anyObject('any further attributes');

const entitySchema = (what: string) =>
  Type.Object(
    { type: Type.String(), id: Type.String(), properties: Type.Optional(propertiesSchema) },
    { description: `the ${what} (AuthZEN §5); reaches policies as the complex parameter \`${what}\``, additionalProperties: true },
  );

/** §5.1; a Resource (§5.2) has the same shape. */
export const authzenSubjectSchema = entitySchema('subject');
export const authzenResourceSchema = entitySchema('resource');
export type AuthZenEntity = Static<typeof authzenSubjectSchema>;
export type AuthZenSubject = AuthZenEntity;
export type AuthZenResource = AuthZenEntity;

/** §5.3 */
export const authzenActionSchema = Type.Object(
  { name: Type.String(), properties: Type.Optional(propertiesSchema) },
  {
    description: 'the action (AuthZEN §5.3): `name` is an action name of the caller’s solution or a whole `urn:action:…`',
    additionalProperties: true,
  },
);
export type AuthZenAction = Static<typeof authzenActionSchema>;

/** §5.4: any object. */
export const authzenContextSchema = anyObject('the environment (AuthZEN §5.4); reaches policies as the complex parameter `context`');
export type AuthZenContext = Static<typeof authzenContextSchema>;

export const authzenOptionsSchema = Type.Object(
  {
    evaluations_semantic: Type.Optional(
      Type.Unsafe<EvaluationsSemantic>({ type: 'string', enum: [...EVALUATIONS_SEMANTICS], description: 'AuthZEN §7.1.2.1; `execute_all` when absent' }),
    ),
    custos_modifiers_supported: Type.Optional(
      Type.Boolean({ description: '`false`: the caller cannot apply modifiers, so a decision with modifiers is answered `false`' }),
    ),
    custos_context: Type.Optional(
      Type.Boolean({
        description:
          '`true`: every decision carries its context (decision id, revision, modifiers, delay, reason); otherwise only when the PEP must act on it',
      }),
    ),
  },
  { additionalProperties: true },
);
/** The request `options` the pdp reads (AUTHZEN_OPTIONS); others are allowed (§4) and ignored, so the type takes any. */
export type AuthZenOptions = Static<typeof authzenOptionsSchema> & { [option: string]: unknown };

const evaluationProperties = {
  subject: Type.Optional(authzenSubjectSchema),
  action: Type.Optional(authzenActionSchema),
  resource: Type.Optional(authzenResourceSchema),
  context: Type.Optional(authzenContextSchema),
};

/** `POST /access/v1/evaluation` (§6.1), plus `options` (an augmentation §4 allows). */
export const accessEvaluationRequestSchema = Type.Object(
  {
    subject: authzenSubjectSchema,
    action: authzenActionSchema,
    resource: authzenResourceSchema,
    context: Type.Optional(authzenContextSchema),
    options: Type.Optional(authzenOptionsSchema),
  },
  { additionalProperties: true },
);
export type AccessEvaluationRequest = Static<typeof accessEvaluationRequestSchema>;

/** One entry of `evaluations`: whatever it omits comes from the top-level defaults (§7.1.1). */
const authzenEvaluationSchema = Type.Object(evaluationProperties, { additionalProperties: true });
export type AuthZenEvaluation = Static<typeof authzenEvaluationSchema>;

/** `POST /access/v1/evaluations` (§7.1): without `evaluations` (or with an empty one) it is answered like a single evaluation. */
export const accessEvaluationsRequestSchema = Type.Object(
  {
    ...evaluationProperties,
    evaluations: Type.Optional(
      Type.Array(authzenEvaluationSchema, {
        maxItems: MAX_BATCH_ITEMS,
        description: `at most ${MAX_BATCH_ITEMS}; each entry overrides the top-level defaults`,
      }),
    ),
    options: Type.Optional(authzenOptionsSchema),
  },
  { additionalProperties: true },
);
export type AccessEvaluationsRequest = Static<typeof accessEvaluationsRequestSchema>;

export const custosDecisionContextSchema = Type.Object({
  /** The Custos decision id (`urn:decision:` + UUIDv7), the key of the decision log; when asked. */
  decision_id: Type.Optional(Type.String({ pattern: '^urn:decision:[0-9a-f-]{36}$' })),
  /** The revision of the policy set that decided (the `Policy-Revision` header); when asked. */
  policy_revision: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The modifiers the PEP must apply before releasing, as `POST /event` answers them; empty when denied. */
  modifiers: Type.Array(modifierType),
  /** Milliseconds the PEP must wait before releasing (or dropping); 0 = none. */
  delay_ms: Type.Integer({ minimum: 0 }),
  /** Why `decision` is false although the event was allowed (see AUTHZEN_REASONS). */
  reason: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: Object.values(AUTHZEN_REASONS) })),
  /**
   * The parameters that allowing modifiers aim at although the evaluation has no such parameter (only `subject`,
   * `resource`, `action` and `context` exist): such a modifier cannot be applied, so the decision is `false`.
   */
  unmatched_parameters: Type.Optional(Type.Array(Type.String())),
});
export type CustosDecisionContext = Static<typeof custosDecisionContextSchema>;

/** §5.5 */
export const authzenDecisionSchema = Type.Object({ decision: Type.Boolean(), context: Type.Optional(custosDecisionContextSchema) });
export type AuthZenDecision = Static<typeof authzenDecisionSchema>;

/** §7.2: one decision per evaluation, in order; shorter when a short-circuiting semantic stopped early. */
export const accessEvaluationsResponseSchema = Type.Object({ evaluations: Type.Array(authzenDecisionSchema) });
export type AccessEvaluationsResponse = Static<typeof accessEvaluationsResponseSchema>;

/** §9.1, the endpoints this pdp offers (the search APIs are not offered, so their endpoints are absent). */
export const pdpMetadataSchema = Type.Object({
  policy_decision_point: Type.String(),
  access_evaluation_endpoint: Type.String(),
  access_evaluations_endpoint: Type.Optional(Type.String()),
});
export type PdpMetadata = Static<typeof pdpMetadataSchema>;
