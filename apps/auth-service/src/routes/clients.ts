import {
  ALL_SCOPES,
  ALL_SOLUTIONS,
  createClientSchema,
  ERROR_CODES,
  MAX_CLIENT_DESCRIPTION,
  SCOPES,
  type CreateClientBody,
} from '@custos/contracts';
import { compileValidator, foreignSolution, type BodyValidator, insufficientScope, jsonResponse, principalOf, problems, problemResponse as problem, withTransaction } from '@custos/service-kit';
import { ClientStore, generateClientId, type ClientRecord } from '../clients/client-store';
import { mayManage, toView, type ClientView } from '../clients/view';
import { generateSecret, hashSecret } from '../hashing/secrets';
import { noStore } from '../oauth/errors';
import { authRoute } from './context';
import { adminErrors, NO_STORE, ref } from './responses';

export const CLIENTS_PATH = '/clients';
export const CLIENT_BODY_LIMIT = 16 * 1024;

// The contract's schema, the very object the OpenAPI document shows.
const validateCreate: BodyValidator<CreateClientBody> = compileValidator<CreateClientBody>(createClientSchema);

/** A new client as the admin API and the CLI accept it, or a 400 problem locating every mistake. */
export function validateNewClient(body: unknown): CreateClientBody {
  validateCreate.assert(body, ERROR_CODES.invalidRequest, 'the client is not valid');
  if (body.solutions.includes(ALL_SOLUTIONS) && body.solutions.length > 1) {
    throw problems.badRequest(ERROR_CODES.invalidRequest, 'the client is not valid', [
      { path: 'solutions', message: '`*` (every solution) stands alone' },
    ]);
  }
  return body;
}

/** Stores a validated new client with a generated id and secret; the secret is returned this once. */
export async function registerClient(clients: ClientStore, body: CreateClientBody): Promise<{ client: ClientRecord; secret: string }> {
  const secret = generateSecret();
  const client = await clients.create({
    id: generateClientId(),
    secretHash: await hashSecret(secret),
    // Stored in the canonical order, so lists and tokens read the same everywhere.
    scopes: ALL_SCOPES.filter((scope) => body.scopes.includes(scope)),
    solutions: body.solutions,
    description: body.description ?? '',
  });
  // 128 random bits never collide in practice; if they did, this is a bug worth a 500 and a log line.
  if (!client) throw new Error('generated client id already exists');
  return { client, secret };
}

/** 201 body of POST /clients: the client and, this once, its secret. */
export interface CreatedClient extends ClientView {
  client_secret: string;
}

/** GET /clients: the clients this administrator may manage. */
export const listClients = authRoute({
  method: 'get',
  path: CLIENTS_PATH,
  tags: ['clients'],
  summary: 'list clients (never their secrets)',
  description: 'An administrator bound to some solutions sees only the clients bound to a subset of them; one with `*` sees all.',
  scope: SCOPES.clientAdmin,
  responses: { 200: jsonResponse('the clients', { type: 'array', items: ref('Client') }), ...adminErrors },
  handler: async (_req, res, { deps }) => {
    const principal = principalOf(res);
    const all = await deps.clients.list();
    res.status(200).json(all.filter((client) => mayManage(principal, client.solutions)).map(toView));
  },
});

/** POST /clients: registers a client; its secret is in this answer only. */
export const createClient = authRoute({
  method: 'post',
  path: CLIENTS_PATH,
  tags: ['clients'],
  summary: 'register a client; its secret is shown in this answer only',
  description:
    'The id is generated. The caller may only grant scopes its own token has and solutions it may access. ' +
    `Bodies up to ${CLIENT_BODY_LIMIT} bytes; description up to ${MAX_CLIENT_DESCRIPTION} characters.`,
  scope: SCOPES.clientAdmin,
  body: { media: 'json', limit: CLIENT_BODY_LIMIT, schema: createClientSchema, documentAs: ref('NewClient'), parse: validateNewClient },
  responses: {
    201: jsonResponse('created', ref('CreatedClient'), { Location: { schema: { type: 'string' }, description: '/clients/{id}' }, ...NO_STORE }),
    400: problem('malformed JSON or an invalid client; `errors` locate every problem by path'),
    ...adminErrors,
    403: problem('the token lacks `client:admin`, a scope it would grant, or a solution it would grant'),
    413: problem(`body over ${CLIENT_BODY_LIMIT} bytes`),
    415: problem('not `application/json`'),
  },
  handler: async (_req, res, { deps, body }) => {
    const principal = principalOf(res);
    if (!mayManage(principal, body.solutions)) throw foreignSolution('client:admin');
    const beyond = body.scopes.find((scope) => !principal.hasScope(scope));
    if (beyond !== undefined) throw insufficientScope(beyond, `the token cannot grant the scope \`${beyond}\``);

    const { client: created, secret } = await withTransaction(deps.pool, async (tx) => {
      const registered = await registerClient(new ClientStore(tx), body);
      await deps.audit.recordIn(tx, res, { target: registered.client.id, status: 201 });
      return registered;
    });
    const answer: CreatedClient = { ...toView(created), client_secret: secret };
    noStore(res);
    res.status(201).location(`${CLIENTS_PATH}/${encodeURIComponent(created.id)}`).json(answer);
  },
});
