import type { Request, RequestHandler, Response } from 'express';
import type { RouteHandlers } from '@custos/service-kit';
import type { ClientStore } from '../clients/client-store';
import { generateSecret, hashSecret } from '../hashing/secrets';
import { noStore } from '../oauth/errors';
import { manageableClient, unknownClient } from './client';
import { idParam } from '../clients/admin-guard';

export const CLIENT_SECRET_PATH = '/clients/:id/secret';

export interface RotatedSecret {
  client_id: string;
  client_secret: string;
}

/**
 * POST /clients/{id}/secret: a new secret replaces the old one at once (tokens already issued
 * stay valid until they expire). No body is read.
 */
export function clientSecretRoute(clients: ClientStore, guard: RequestHandler[]): RouteHandlers {
  const rotate = async (req: Request, res: Response): Promise<void> => {
    const client = await manageableClient(clients, req, res);
    if (!client) throw unknownClient(idParam(req));
    const secret = generateSecret();
    if (!(await clients.setSecretHash(client.id, await hashSecret(secret)))) throw unknownClient(client.id);
    const answer: RotatedSecret = { client_id: client.id, client_secret: secret };
    noStore(res);
    res.status(200).json(answer);
  };
  return { post: [...guard, rotate] };
}
