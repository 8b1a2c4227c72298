import { ERROR_CODES, rotateOptionsSchema, SCOPES, type RotatedSecret } from '@custos/contracts';
import { jsonResponse, problemResponse as problem, withTransaction } from '@custos/service-kit';
import { ClientStore } from '../clients/client-store';
import { generateSecret, hashSecret } from '../hashing/secrets';
import { noStore } from '../oauth/errors';
import { RevocationStore } from '../revocation/revocation-store';
import { idParam } from '../clients/admin-guard';
import { CLIENT_ID_PARAM, manageableClient, unknownClient } from './client';
import { authRoute } from './context';
import { adminErrors, NO_STORE, ref } from './responses';

const OPTIONS_LIMIT = 1024;

/**
 * POST /clients/{id}/secret: a new secret replaces the old one at once. With `{"revoke_tokens": true}`
 * the tokens issued so far are revoked too (a leaked secret: whoever used it may hold tokens); without,
 * they stay valid until they expire. The options body is optional: a request without one rotates with the defaults.
 */
export const rotateSecret = authRoute({
  method: 'post',
  path: '/clients/{id}/secret',
  tags: ['clients'],
  summary: 'rotate the secret: a new one replaces the old at once',
  description:
    'An optional JSON body `{"revoke_tokens": true}` also revokes every token issued to the client so far (for a ' +
    'leaked secret); without it, tokens issued before stay valid until they expire.',
  scope: SCOPES.clientAdmin,
  params: CLIENT_ID_PARAM,
  body: {
    media: 'json',
    limit: OPTIONS_LIMIT,
    schema: rotateOptionsSchema,
    optional: true,
    invalid: { code: ERROR_CODES.invalidRequest, detail: 'the rotation options are not valid' },
  },
  responses: {
    200: jsonResponse('the new secret, shown this once', ref('RotatedSecret'), NO_STORE),
    400: problem('the options are not valid (`revoke_tokens` must be a boolean; nothing else is accepted)'),
    404: problem('no such client (or one this administrator may not manage)'),
    ...adminErrors,
    413: problem(`options over ${OPTIONS_LIMIT} bytes`),
    415: problem('a body that is not `application/json`'),
  },
  handler: async (req, res, { deps, body }) => {
    const revokeTokens = body?.revoke_tokens === true;
    const client = await manageableClient(deps.clients, req, res);
    if (!client) throw unknownClient(idParam(req));
    const secret = generateSecret();
    const secretHash = await hashSecret(secret);
    const entry = await withTransaction(deps.pool, async (tx) => {
      if (!(await new ClientStore(tx).setSecretHash(client.id, secretHash))) throw unknownClient(client.id);
      const revoked = revokeTokens ? await new RevocationStore(tx).revokeClient(client.id, deps.clock()) : undefined;
      await deps.audit.recordIn(tx, res);
      return revoked;
    });
    if (entry) deps.revoker.announce(entry);
    const answer: RotatedSecret = { client_id: client.id, client_secret: secret };
    noStore(res);
    res.status(200).json(answer);
  },
});
