import { mountRoutes, requireScope, type Logger, type ServiceApp, type TokenVerifier } from '@custos/service-kit';
import { explainProxy } from './explain-proxy';
import { CONSOLE_ROUTES } from './routes';
import { consoleSecurityHeaders } from './security-headers';
import { consoleAssets } from './static-assets';
import { tokenProxy } from './token-proxy';

/** Where the console's pieces are: its built files, and the services pap forwards its calls to. */
export interface ConsoleOptions {
  assetsDir: string;
  /** auth-service, for `POST /console/token`. */
  authUrl: string;
  /** A pdp (or a gateway in front of the replicas), for `POST /console/explain`. */
  pdpUrl: string;
}

/**
 * The web console at `/console` (one page, hash-routed) with its assets, and the two calls it cannot make to pap's
 * own API: a token from auth and an explanation from a pdp, both forwarded so the browser talks to one origin.
 */
export function mountConsole(service: ServiceApp, options: ConsoleOptions, verifier: TokenVerifier, logger: Logger): void {
  const { assets, page } = consoleAssets(options.assetsDir);
  service.app.use('/console', consoleSecurityHeaders);
  service.app.use('/console/assets', assets);
  const deps = { page, forwardToken: tokenProxy(options.authUrl, logger), forwardExplain: explainProxy(options.pdpUrl, logger) };
  mountRoutes(service, CONSOLE_ROUTES, deps, { authorize: (scope) => requireScope(verifier, scope) });
}
