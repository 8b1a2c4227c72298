import { RedirectError } from './errors';

/** The statuses fetch would follow (RFC 9110 §15.4); other 3xx answers are plain answers. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** What every request that carries a secret or a token passes to fetch: redirects come back as answers. */
export const NO_REDIRECTS = { redirect: 'manual' } as const satisfies RequestInit;

/**
 * Throws a RedirectError for a redirect answer (its body dropped, so the connection is free again); any other
 * answer passes.
 */
export async function refuseRedirect(url: string, response: Response): Promise<void> {
  if (!REDIRECTS.has(response.status)) return;
  await response.body?.cancel().catch(() => undefined);
  throw new RedirectError(url, response.status, locationOf(url, response.headers.get('location')));
}

function locationOf(url: string, location: string | null): string | undefined {
  if (location === null) return undefined;
  try {
    return new URL(location, url).href;
  } catch {
    return location;
  }
}
