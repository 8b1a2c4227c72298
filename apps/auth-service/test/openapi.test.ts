import type { Express } from 'express';
import request from 'supertest';
import { createClientSchema, problemSchema } from '@custos/contracts';
import { documentedOperations, servedOperations } from '@custos/test-kit';
import { openapi } from '../src/openapi';
import { testEnv, tokenFor, type TestEnv } from './helpers';

const ADMIN = { id: 'openapi-admin', secret: 'openapi-admin-secret-0123456789' };

describe('the OpenAPI document of auth-service', () => {
  let env: TestEnv;
  let app: Express;

  beforeAll(async () => {
    env = await testEnv();
    app = await env.app({ config: { bootstrap: { clientId: ADMIN.id, clientSecret: ADMIN.secret }, trustProxy: false } });
  });

  afterAll(async () => {
    await env?.close();
  });

  it('describes exactly the operations the app routes', () => {
    const served = servedOperations(app);
    expect(served).toEqual(expect.arrayContaining(['post /oauth/token', 'get /clients/{id}', 'post /clients/{id}/secret', 'get /docs']));
    expect(documentedOperations(openapi)).toEqual(served);
  });

  it('shows the schemas of the contract that validate requests, not copies', () => {
    expect(openapi.components.schemas.NewClient).toBe(createClientSchema);
    expect(openapi.components.schemas.Problem).toBe(problemSchema);
  });

  it('rejects a client the documented schema rejects, at the path the schema names', async () => {
    const token = await tokenFor(app, ADMIN.id, ADMIN.secret);
    const tooMany = Array.from({ length: createClientSchema.properties.solutions.maxItems + 1 }, (_, i) => `s${i}`);
    const response = await request(app).post('/clients').set('Authorization', `Bearer ${token}`).send({ solutions: tooMany, scopes: ['event:decide'] });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'solutions', message: `must NOT have more than ${createClientSchema.properties.solutions.maxItems} items` }]);
  });
});
