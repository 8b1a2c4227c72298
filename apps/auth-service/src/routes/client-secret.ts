import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ERROR_CODES } from '@custos/contracts';
import { compileValidator, jsonBody, type BodyValidator, type RouteHandlers } from '@custos/service-kit';
import type { ClientStore } from '../clients/client-store';
import { generateSecret, hashSecret } from '../hashing/secrets';
import { noStore } from '../oauth/errors';
import type { Revoker } from '../revocation/revoker';
import { manageableClient, unknownClient } from './client';
import { idParam } from '../clients/admin-guard';

export const CLIENT_SECRET_PATH = '/clients/:id/secret';
const OPTIONS_LIMIT = 1024;

export interface RotatedSecret {
  client_id: string;
  client_secret: string;
}

export interface RotateOptions {
  revoke_tokens?: boolean;
}

const validateOptions: BodyValidator<RotateOptions> = compileValidator<RotateOptions>({
  type: 'object',
  properties: { revoke_tokens: { type: 'boolean' } },
  additionalProperties: false,
});

/** The options body is optional: a request without one (no Content-Type, empty) rotates with the defaults. */
const optionalOptions = (): RequestHandler => {
  const json = jsonBody(OPTIONS_LIMIT);
  return (req: Request, res: Response, next: NextFunction) => {
    const declared = req.headers['content-length'];
    if (req.headers['content-type'] === undefined && (declared === undefined || declared === '0') && req.headers['transfer-encoding'] === undefined) {
      req.body = {};
      next();
      return;
    }
    return json(req, res, next);
  };
};

/**
 * POST /clients/{id}/secret: a new secret replaces the old one at once. With `{"revoke_tokens": true}`
 * the tokens issued so far are revoked too (a leaked secret: whoever used it may hold tokens); without,
 * they stay valid until they expire.
 */
export function clientSecretRoute(clients: ClientStore, guard: RequestHandler[], revoker: Revoker): RouteHandlers {
  const rotate = async (req: Request, res: Response): Promise<void> => {
    const options: unknown = req.body;
    validateOptions.assert(options, ERROR_CODES.invalidRequest, 'the rotation options are not valid');
    const revokeTokens = options.revoke_tokens === true;
    const client = await manageableClient(clients, req, res);
    if (!client) throw unknownClient(idParam(req));
    const secret = generateSecret();
    if (!(await clients.setSecretHash(client.id, await hashSecret(secret)))) throw unknownClient(client.id);
    if (revokeTokens) await revoker.revokeClient(client.id);
    const answer: RotatedSecret = { client_id: client.id, client_secret: secret };
    noStore(res);
    res.status(200).json(answer);
  };
  return { post: [...guard, optionalOptions(), rotate] };
}
