import type { Logger, ServiceApp, TokenVerifier } from '@custos/service-kit';
import { explainProxy } from './explain-proxy';
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
  service.route('/console', { get: page });
  service.route('/console/token', { post: tokenProxy(options.authUrl, logger) });
  service.route('/console/explain', { post: explainProxy(options.pdpUrl, verifier, logger) });
}
