import type { Request, RequestHandler, Response } from 'express';
import { ALL_SCOPES, ALL_SOLUTIONS, createClientSchema, ERROR_CODES } from '@custos/contracts';
import {
  compileValidator,
  foreignSolution,
  insufficientScope,
  jsonBody,
  principalOf,
  problems,
  type BodyValidator,
  type RouteHandlers,
} from '@custos/service-kit';
import { generateClientId, type ClientRecord, type ClientStore } from '../clients/client-store';
import { mayManage, toView, type ClientView } from '../clients/view';
import { generateSecret, hashSecret } from '../hashing/secrets';
import { noStore } from '../oauth/errors';

export const CLIENTS_PATH = '/clients';
export const CLIENT_BODY_LIMIT = 16 * 1024;

export interface CreateClientBody {
  solutions: string[];
  scopes: string[];
  description?: string;
}

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

/** GET /clients (the clients this administrator may manage) and POST /clients (register one). */
export function clientsRoute(clients: ClientStore, guard: RequestHandler[]): RouteHandlers {
  const list = async (_req: Request, res: Response): Promise<void> => {
    const principal = principalOf(res);
    const all = await clients.list();
    res.status(200).json(all.filter((client) => mayManage(principal, client.solutions)).map(toView));
  };

  const create = async (req: Request, res: Response): Promise<void> => {
    const body = validateNewClient(req.body);
    const principal = principalOf(res);
    if (!mayManage(principal, body.solutions)) throw foreignSolution('client:admin');
    const beyond = body.scopes.find((scope) => !principal.hasScope(scope));
    if (beyond !== undefined) throw insufficientScope(beyond, `the token cannot grant the scope \`${beyond}\``);

    const { client: created, secret } = await registerClient(clients, body);
    const answer: CreatedClient = { ...toView(created), client_secret: secret };
    noStore(res);
    res.status(201).location(`${CLIENTS_PATH}/${encodeURIComponent(created.id)}`).json(answer);
  };

  return { get: [...guard, list], post: [...guard, jsonBody(CLIENT_BODY_LIMIT), create] };
}
