import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, PROBLEM_CONTENT_TYPE, problemType } from '@custos/contracts';
import type { Logger } from './observability/logger';

export type Closer = () => Promise<void> | void;

const CLIENT_ERRORS: Record<string, { status: number; title: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, title: 'Request Header Fields Too Large', detail: 'the request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout', detail: 'the request took too long to arrive' },
};
const NOT_HTTP = { status: 400, title: 'Bad Request', detail: 'the request is not valid HTTP/1.1' };

/**
 * Requests node's parser refuses (CR or LF inside a header value, oversized headers, malformed
 * request lines, request smuggling attempts) never reach the app; by default node answers them with
 * a bare status line. This answers them as problem+json too, and closes the connection.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, title, detail } = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP;
    const body = JSON.stringify({ type: problemType(ERROR_CODES.invalidRequest), title, status, detail, code: ERROR_CODES.invalidRequest });
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  });
}

/** Listens and resolves once the port is bound; requests node cannot parse are answered as problems. */
export function listen(server: Server, port: number, host = '0.0.0.0'): Promise<void> {
  if (server.listenerCount('clientError') === 0) answerClientErrors(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Stops `server` without losing a request: the listener closes at once (a gateway's next connection attempt is
 * refused, and it tries another replica), every response from then on says `Connection: close`, and requests in
 * flight are answered. Kept-alive connections between two requests are closed only after `idleGraceMs`: a client
 * may be sending its next request on one right now, and a connection closed under it loses a request the client
 * cannot safely resend (a POST); within the grace that request is answered, and the connection then closed. Past
 * `graceMs`, whatever is left is cut.
 */
export async function drainServer(server: Server, { graceMs = 10_000, idleGraceMs = 1_000 } = {}): Promise<void> {
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => res.setHeader('Connection', 'close'));
  // net's close, not http's: http's server.close() also closes every kept-alive connection between requests at
  // once (node ≥ 19). net's stops listening and calls back when the last connection is gone.
  const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
  const idle = setTimeout(() => server.closeIdleConnections(), idleGraceMs);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await closed;
  } finally {
    clearTimeout(idle);
    clearTimeout(cut);
  }
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: drain the server (`drainServer`, bounded by `graceMs`), then run the closers
 * (NATS, pools, loggers) in order.
 */
export function installShutdown(server: Server, logger: Logger, closers: Closer[], graceMs = 10_000): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      logger.info('shutting down');
      await drainServer(server, { graceMs });
      for (const close of closers) {
        try {
          await close();
        } catch (error) {
          logger.warn({ err: error }, 'error while closing');
        }
      }
      logger.info('stopped');
      // Log lines are written in batches: the last ones must reach stdout before the process exits.
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'signal received');
    void stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return stop;
}
