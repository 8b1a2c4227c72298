import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { composeAuth, readAuthConfig } from '@custos/auth-service';
import { LocalPolicyChannel } from '@custos/contracts';
import { composePap, readPapConfig } from '@custos/pap-service';
import { composePdp, readPdpConfig } from '@custos/pdp-service';
import { LOG_LEVELS, createLogger, listen, readChoice, readOptional, type Closer, type Env } from '@custos/service-kit';
import { lockDataDir } from './data-lock';
import { startEmbeddedPostgres } from './database';

/** Where embedded mode keeps its database unless `CUSTOS_DATA_DIR` says otherwise (relative to the working folder). */
export const DEFAULT_DATA_DIR = '.custos';

export interface EmbeddedCustos {
  dataDir: string;
  urls: { auth: string; pap: string; pdp: string };
  /** Stops accepting, then closes every service and the database; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The three services in this process on embedded parts: one PGlite database in `dataDir` shared through one pool,
 * and pap → pdp propagation over an in-process channel. Each service is composed exactly as its own main composes
 * it, with the database pool and the transport as overrides; each listens on its usual port.
 */
export async function startEmbedded(env: Env): Promise<EmbeddedCustos> {
  const dataDir = path.resolve(readOptional(env, 'CUSTOS_DATA_DIR') ?? DEFAULT_DATA_DIR);
  const logger = createLogger('embedded', readChoice(env, 'LOG_LEVEL', LOG_LEVELS, 'info'));
  const unlock = lockDataDir(dataDir);
  const database = await startEmbeddedPostgres(path.join(dataDir, 'postgres'), logger).catch((error: unknown) => {
    unlock();
    throw error;
  });
  const { pool } = database;
  const servers: Server[] = [];
  const closers: Closer[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(servers.map((server) => closeServer(server)));
      // Services in reverse order of start: the pdp stops following before pap stops publishing.
      for (const close of closers.reverse()) {
        try {
          await close();
        } catch (error) {
          logger.warn({ err: error }, 'error while stopping');
        }
      }
      await database.close();
      unlock();
    })();
    return stopping;
  };
  try {
    const databaseUrl = database.url;
    const authConfig = readAuthConfig({ ...env, DATABASE_URL: databaseUrl });
    const authUrl = `http://127.0.0.1:${authConfig.port}`;
    const shared = { ...env, DATABASE_URL: databaseUrl, AUTH_URL: authUrl };
    const channel = new LocalPolicyChannel();

    const auth = await composeAuth(authConfig, { pool: pool });
    closers.push(...auth.closers);
    servers.push(await auth.listen());

    const papConfig = readPapConfig(shared);
    const pap = composePap(papConfig, { sharedPool: pool, policyChannel: channel });
    closers.push(() => pap.stop());
    await pap.start();
    servers.push(await serve(createServer(pap.app), papConfig.port));

    const pdp = await composePdp(readPdpConfig(shared), { sharedPool: pool, policyChannel: channel });
    closers.push(...pdp.closers);
    servers.push(await pdp.listen());

    return {
      dataDir,
      urls: { auth: authUrl, pap: `http://127.0.0.1:${papConfig.port}`, pdp: `http://127.0.0.1:${pdp.config.port}` },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function serve(server: Server, port: number): Promise<Server> {
  await listen(server, port);
  return server;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  });
}
