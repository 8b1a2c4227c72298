import type { Server } from 'node:http';
import { installShutdown, type Env } from '@custos/service-kit';
import { composePdp, type ComposedPdp } from './compose';
import { readPdpConfig } from './config';
import { SERVICE_NAME } from './metrics';

/** The pdp as `start` leaves it: composed and listening. */
export type RunningPdp = ComposedPdp & { server: Server };

/** Config → composePdp → listen. Nothing else happens here. */
export async function start(env: Env): Promise<RunningPdp> {
  const pdp = await composePdp(readPdpConfig(env));
  return { ...pdp, server: await pdp.listen() };
}

if (require.main === module) {
  start(process.env).then(
    ({ server, logger, closers }) => void installShutdown(server, logger, closers),
    (error: unknown) => {
      console.error(`${SERVICE_NAME} failed to start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
