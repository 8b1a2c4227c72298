import { Api } from './api';
import { requireSession } from './config-store';
import type { RemoteContext } from './context';

/** The API with the cached login, or a usage failure telling the user to log in (again). */
export async function sessionApi(context: RemoteContext): Promise<Api> {
  return new Api(await requireSession(context.env, context.now()), context);
}
