import { readCommonConfig, readInteger, readString, type CommonConfig, type Env } from '@custos/service-kit';

export interface PapConfig extends CommonConfig {
  port: number;
  /** A pdp (or a gateway in front of the replicas) the console's explanations go to. */
  pdpUrl: string;
}

/** api.md §1: the shared variables plus `PAP_PORT` (default 8081), and `PDP_URL` for the console (README). */
export function readPapConfig(env: Env): PapConfig {
  return {
    ...readCommonConfig(env),
    port: readInteger(env, 'PAP_PORT', 8081, 1, 65535),
    pdpUrl: readString(env, 'PDP_URL', 'http://127.0.0.1:8080'),
  };
}
