import type { Request, Response } from 'express';
import { Type } from '@sinclair/typebox';
import { SCOPES } from '@custos/contracts';
import { jsonResponse, principalOf, problemResponse as problem, problems, withTransaction } from '@custos/service-kit';
import { ClientStore, type ClientRecord } from '../clients/client-store';
import { RevocationStore } from '../revocation/revocation-store';
import { idParam } from '../clients/admin-guard';
import { isPossibleClientId } from '../clients/authenticate';
import { mayManage, toView } from '../clients/view';
import { authRoute } from './context';
import { adminErrors, ref } from './responses';

export const CLIENT_PATH = '/clients/{id}';

/** The `id` of `/clients/{id}…`: any text; one that is no client's is answered like an unknown one. */
export const CLIENT_ID_PARAM = {
  id: { schema: Type.String(), description: 'the client id (generated ones look like `c_` + 22 base64url characters)' },
};

/**
 * The client `id` if this administrator may manage it. A client it may not manage is answered
 * exactly like a missing one, so its existence is never confirmed.
 */
export async function manageableClient(clients: ClientStore, req: Request, res: Response): Promise<ClientRecord | undefined> {
  const id = idParam(req);
  const client = isPossibleClientId(id) ? await clients.find(id) : undefined;
  return client && mayManage(principalOf(res), client.solutions) ? client : undefined;
}

export const unknownClient = (id: string) => problems.notFound(`no client \`${id.slice(0, 128)}\``);

const NOT_MANAGED = problem('no such client (or one this administrator may not manage)');

/** GET /clients/{id}: the client, 404 if unknown. */
export const showClient = authRoute({
  method: 'get',
  path: CLIENT_PATH,
  tags: ['clients'],
  summary: 'one client',
  scope: SCOPES.clientAdmin,
  params: CLIENT_ID_PARAM,
  responses: { 200: jsonResponse('the client', ref('Client')), 404: NOT_MANAGED, ...adminErrors },
  handler: async (req, res, { deps }) => {
    const client = await manageableClient(deps.clients, req, res);
    if (!client) throw unknownClient(idParam(req));
    res.status(200).json(toView(client));
  },
});

/**
 * DELETE /clients/{id}: true when it existed. A deleted client's tokens are revoked: pap and pdp refuse them
 * within a second, not at their expiry.
 */
export const deleteClient = authRoute({
  method: 'delete',
  path: CLIENT_PATH,
  tags: ['clients'],
  summary: 'remove a client; it gets no new tokens at once, and the tokens it holds are revoked (pap and pdp refuse them within about a second)',
  scope: SCOPES.clientAdmin,
  params: CLIENT_ID_PARAM,
  responses: { 200: jsonResponse('`true` when it existed and is gone, else `false`', { type: 'boolean' }), ...adminErrors },
  handler: async (req, res, { deps }) => {
    const client = await manageableClient(deps.clients, req, res);
    if (!client) {
      res.status(200).json(false);
      return;
    }
    // The client, the revocation of its tokens and the audit record: all or nothing.
    const entry = await withTransaction(deps.pool, async (tx) => {
      if (!(await new ClientStore(tx).delete(client.id))) return undefined;
      const revoked = await new RevocationStore(tx).revokeClient(client.id, deps.clock());
      await deps.audit.recordIn(tx, res);
      return revoked;
    });
    if (entry) deps.revoker.announce(entry);
    const deleted = entry !== undefined;
    res.status(200).json(deleted);
  },
});
