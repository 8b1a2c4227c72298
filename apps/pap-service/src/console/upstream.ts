import type { Response } from 'express';
import { ERROR_CODES } from '@custos/contracts';
import { HttpProblem, type Logger } from '@custos/service-kit';

/** How long a forwarded call may take before the console gets a 504. */
export const UPSTREAM_TIMEOUT_MS = 10_000;

/** Answer headers worth passing back to the browser from auth or a pdp. */
const RELAYED = ['content-type', 'cache-control', 'pragma', 'www-authenticate', 'retry-after', 'policy-revision'];

/** Calls `url`; a network failure or timeout becomes a 502/504 problem that names the service, never a 500. */
export async function callUpstream(service: string, url: string, init: RequestInit, logger: Logger): Promise<globalThis.Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    logger.warn({ err: error, service, url }, 'console: upstream call failed');
    return Promise.reject(
      new HttpProblem(
        timedOut ? 504 : 502,
        ERROR_CODES.serviceUnavailable,
        timedOut ? `${service} did not answer within ${UPSTREAM_TIMEOUT_MS} ms` : `${service} could not be reached at \`${url}\``,
      ),
    );
  }
}

/** Passes an upstream answer on: status, the headers that matter (less `omit`), body. */
export async function relay(upstream: globalThis.Response, res: Response, omit: readonly string[] = []): Promise<void> {
  for (const name of RELAYED.filter((header) => !omit.includes(header))) {
    const value = upstream.headers.get(name);
    if (value !== null) res.setHeader(name, value);
  }
  res.status(upstream.status).send(Buffer.from(await upstream.arrayBuffer()));
}
