import type { Response } from 'express';
import { principalOf } from '@custos/service-kit';
import type { Author } from '../store/versions';

/** Who stores a text in this request, for the document's history: the token's client id and the request's id. */
export const authorOf = (res: Response): Author => ({
  clientId: principalOf(res).clientId,
  requestId: typeof res.locals.requestId === 'string' ? res.locals.requestId : null,
});
