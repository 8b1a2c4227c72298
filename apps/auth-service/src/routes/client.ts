import type { Request, RequestHandler, Response } from 'express';
import { principalOf, problems, type RouteHandlers } from '@custos/service-kit';
import type { ClientRecord, ClientStore } from '../clients/client-store';
import { idParam } from '../clients/admin-guard';
import { isPossibleClientId } from '../clients/authenticate';
import { mayManage, toView } from '../clients/view';
import type { Revoker } from '../revocation/revoker';

export const CLIENT_PATH = '/clients/:id';

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

/**
 * GET /clients/{id} (the client, 404 if unknown) and DELETE /clients/{id} (true when it existed). A
 * deleted client's tokens are revoked: pap and pdp refuse them within a second, not at their expiry.
 */
export function clientRoute(clients: ClientStore, guard: RequestHandler[], revoker: Revoker): RouteHandlers {
  const show = async (req: Request, res: Response): Promise<void> => {
    const client = await manageableClient(clients, req, res);
    if (!client) throw unknownClient(idParam(req));
    res.status(200).json(toView(client));
  };
  const remove = async (req: Request, res: Response): Promise<void> => {
    const client = await manageableClient(clients, req, res);
    const deleted = client ? await clients.delete(client.id) : false;
    if (client && deleted) await revoker.revokeClient(client.id);
    res.status(200).json(deleted);
  };
  return { get: [...guard, show], delete: [...guard, remove] };
}
