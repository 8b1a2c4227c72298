import Ajv from 'ajv';
import request from 'supertest';
import {
  accessEvaluationRequestSchema,
  accessEvaluationsRequestSchema,
  accessEvaluationsResponseSchema,
  answeredValueSchema,
  authorizationDecisionSchema,
  authzenDecisionSchema,
  decisionBatchSchema,
  eventBatchSchema,
  eventSchema,
  modifierSchema,
  pdpMetadataSchema,
  problemSchema,
} from '@custos/contracts';
import { documentedOperations, servedOperations } from '@custos/test-kit';
import { DECISION_PATH, EXPLAIN_PATH, type PdpListener } from '../src/app';
import { openapi } from '../src/openapi';
import { maskingPolicy } from './support/policies';
import { wireEvent } from './support/pdp';
import { usePdp } from './support/use-pdp';

/** A validator of one component schema of the document, its `$ref`s resolved within the document. */
function validatorOf(name: keyof typeof openapi.components.schemas) {
  const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
  return ajv.compile({ ...openapi.components.schemas[name], components: openapi.components });
}

describe('the OpenAPI document of pdp-service', () => {
  const pdp = usePdp();

  it('describes exactly the operations the pdp serves, the bare node:http decision routes included', () => {
    const listener = pdp.server.listeners('request')[0] as PdpListener;
    expect(typeof listener.app).toBe('function');
    const served = new Set(servedOperations(listener.app));
    // Answered by the listener before express sees them (app.ts); the express routes behind are for `/event/` and 405s.
    served.add(`post ${DECISION_PATH}`);
    served.add(`post ${EXPLAIN_PATH}`);
    expect(served).toContain('get /status');
    expect(served).toContain('get /docs');
    expect(documentedOperations(openapi)).toEqual([...served].sort());
  });

  it('shows the schemas of the contract that validate requests and shape answers, not copies', () => {
    const schemas = openapi.components.schemas;
    const contract = {
      Event: eventSchema,
      AuthorizationDecision: authorizationDecisionSchema,
      Modifier: modifierSchema,
      ParameterValue: answeredValueSchema,
      Problem: problemSchema,
      EventBatch: eventBatchSchema,
      DecisionBatch: decisionBatchSchema,
      AccessEvaluationRequest: accessEvaluationRequestSchema,
      AccessEvaluationsRequest: accessEvaluationsRequestSchema,
      AuthZenDecision: authzenDecisionSchema,
      AccessEvaluationsResponse: accessEvaluationsResponseSchema,
      PdpMetadata: pdpMetadataSchema,
    };
    for (const [name, schema] of Object.entries(contract)) expect({ name, same: schemas[name as keyof typeof schemas] === schema }).toEqual({ name, same: true });
    expect(schemas.ExplainedDecision.properties.modifiers).toBe(authorizationDecisionSchema.properties.modifiers);
  });

  it('describes what the pdp answers: a decision with modifiers, an explanation and a problem', async () => {
    await pdp.deploy('urn:policy:acme:mask', maskingPolicy('urn:policy:acme:mask', 'urn:action:acme:show'));
    const event = wireEvent('show', { user: { name: { firstName: 'Ann' } }, amount: 1234 });
    const post = (path: string, body: unknown) => request(pdp.server).post(path).set('Authorization', `Bearer ${pdp.token}`).send(body as object);

    const explained = await post(EXPLAIN_PATH, event);
    expect(explained.status).toBe(200);
    expect(explained.body.modifiers).toHaveLength(2);
    const explainedValid = validatorOf('ExplainedDecision');
    expect({ valid: explainedValid(explained.body), errors: explainedValid.errors }).toEqual({ valid: true, errors: null });

    const decided = await post(DECISION_PATH, event);
    expect(decided.status).toBe(200);
    expect(decided.body.modifiers).toHaveLength(2);
    const decisionValid = validatorOf('AuthorizationDecision');
    expect({ valid: decisionValid(decided.body), errors: decisionValid.errors }).toEqual({ valid: true, errors: null });
    // The schema is strict enough to fail: an answer without its modifiers' types would not pass.
    const untyped = { ...decided.body, modifiers: [{ ...decided.body.modifiers[0], engine: [{ method: 'append', parameters: [{ name: 'x', value: { value: 1 } }] }] }] };
    expect(decisionValid(untyped)).toBe(false);

    const rejected = await post(DECISION_PATH, { actionId: { scope: 'acme' }, timestamp: -1 });
    expect(rejected.status).toBe(400);
    const problemValid = validatorOf('Problem');
    expect(problemValid(rejected.body)).toBe(true);
  });

  it('describes the batch and AuthZEN answers and the metadata', async () => {
    await pdp.deploy('urn:policy:acme:mask', maskingPolicy('urn:policy:acme:mask', 'urn:action:acme:show'));
    const post = (path: string, body: unknown) => request(pdp.server).post(path).set('Authorization', `Bearer ${pdp.token}`).send(body as object);
    const valid = (name: keyof typeof openapi.components.schemas, body: unknown) => {
      const validate = validatorOf(name);
      return { valid: validate(body), errors: validate.errors };
    };

    const batch = await post('/events', { events: [wireEvent('show', { user: { name: { firstName: 'Ann' } }, amount: 1234 }), wireEvent('show', { amount: 1000 })] });
    expect(batch.status).toBe(200);
    expect(valid('DecisionBatch', batch.body)).toEqual({ valid: true, errors: null });

    const ask = { subject: { type: 'user', id: 'u1' }, action: { name: 'show' }, resource: { type: 'record', id: 'r1' } };
    const single = await post('/access/v1/evaluation', ask);
    expect(single.status).toBe(200);
    expect(valid('AuthZenDecision', single.body)).toEqual({ valid: true, errors: null });
    const several = await post('/access/v1/evaluations', { ...ask, evaluations: [{}, { action: { name: 'other' } }], options: { custos_modifiers_supported: false } });
    expect(several.status).toBe(200);
    expect(valid('AccessEvaluationsResponse', several.body)).toEqual({ valid: true, errors: null });
    expect(valid('AuthZenDecision', { decision: 'yes' }).valid).toBe(false);

    const metadata = await request(pdp.server).get('/.well-known/authzen-configuration');
    expect(valid('PdpMetadata', metadata.body)).toEqual({ valid: true, errors: null });
  });
});
