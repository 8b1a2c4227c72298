import { readCommonConfig, readInteger, type CommonConfig, type Env } from '@custos/service-kit';

export interface PapConfig extends CommonConfig {
  port: number;
}

/** api.md §1: the shared variables plus `PAP_PORT` (default 8081). */
export function readPapConfig(env: Env): PapConfig {
  return { ...readCommonConfig(env), port: readInteger(env, 'PAP_PORT', 8081, 1, 65535) };
}
