const withTracing = (tracing: TracingConfig | undefined): { tracing?: TracingConfig } => (tracing === undefined ? {} : { tracing });

/** Configuration comes only from the environment; every variable has a default that works locally. */
export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {}

export function readString(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

export function readOptional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function readInteger(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got \`${raw}\``);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got \`${raw}\``);
  return value;
}

/** An IANA time zone by its canonical name (`Europe/Berlin`), `fallback` when unset, or a ConfigError. */
export function readTimeZone(env: Env, name: string, fallback = 'UTC'): string {
  const raw = readOptional(env, name) ?? fallback;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone, got \`${raw}\``);
  }
}

export function readChoice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${choices.map((c) => `\`${c}\``).join(', ')}, got \`${raw}\``);
  }
  return raw as T;
}

/**
 * An express `trust proxy` value: which peers may name the caller's address in `X-Forwarded-For`. Unset or
 * `false`: none (the socket address counts); `true`: any; a number: that many hops; otherwise a comma-separated
 * list of addresses, subnets and the names `loopback`, `linklocal`, `uniquelocal` (checked when it is applied).
 */
export type TrustProxy = string | number | boolean;

export function readTrustProxy(env: Env, name: string): TrustProxy {
  const raw = readOptional(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/** Settings every service shares (api.md §1). */
export interface CommonConfig {
  databaseUrl: string;
  /** `NATS_URL` as written: one URL, or several separated by commas (the servers of one cluster). */
  natsUrl: string;
  /** The servers `NATS_URL` names, in order: what the NATS client takes (it tries them and learns the rest). */
  natsServers: string[];
  natsPrefix: string;
  authUrl: string;
  logLevel: string;
  /** OpenTelemetry traces (the standard `OTEL_*` variables); undefined when off, the default. */
  tracing?: TracingConfig;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/custos';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/**
 * The servers of a `NATS_URL`: comma-separated URLs (`nats://a:4222,nats://b:4222`), blanks around them ignored.
 * The NATS client takes a list, not a comma-separated string: a cluster is named by several, so that a service
 * starting while one of them is down still finds the others.
 */
export function natsServers(url: string): string[] {
  const servers = url
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server !== '');
  if (servers.length === 0) throw new ConfigError(`NATS_URL names no server, got \`${url}\``);
  return servers;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function readCommonConfig(env: Env): CommonConfig {
  const natsPrefix = readString(env, 'NATS_PREFIX', 'custos');
  if (!/^[A-Za-z0-9_-]+$/.test(natsPrefix)) {
    throw new ConfigError(`NATS_PREFIX may hold letters, digits, \`_\` and \`-\` only, got \`${natsPrefix}\``);
  }
  const natsUrl = readString(env, 'NATS_URL', DEFAULT_NATS_URL);
  return {
    databaseUrl: readString(env, 'DATABASE_URL', DEFAULT_DATABASE_URL),
    natsUrl,
    natsServers: natsServers(natsUrl),
    natsPrefix,
    authUrl: readString(env, 'AUTH_URL', 'http://127.0.0.1:8082').replace(/\/+$/, ''),
    logLevel: readChoice(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    ...withTracing(readTracingConfig(env)),
  };
}

/** Where spans go when tracing is on: an OTLP/HTTP receiver taking JSON bodies. */
export interface TracingConfig {
  /** The full URL spans are posted to (`…/v1/traces`). */
  tracesUrl: string;
  /** `service.name` of the spans; the service's own name when `OTEL_SERVICE_NAME` is unset. */
  serviceName?: string;
  /** How long ended spans wait to be sent together (`OTEL_BSP_SCHEDULE_DELAY`, 5000 ms by default). */
  exportDelayMs: number;
}

const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/**
 * Tracing from the standard OpenTelemetry variables, off unless asked for: on when `OTEL_TRACES_EXPORTER` is `otlp`
 * or an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, used as it is, or `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * to which `/v1/traces` is added); off with `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true` whatever else is
 * set. Spans go over OTLP/HTTP as JSON (`OTEL_EXPORTER_OTLP_PROTOCOL`, when set, must say `http/json`).
 */
export function readTracingConfig(env: Env): TracingConfig | undefined {
  if (readOptional(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporter = readOptional(env, 'OTEL_TRACES_EXPORTER')?.trim().toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none') {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be \`otlp\` or \`none\`, got \`${exporter}\``);
  }
  const tracesEndpoint = readOptional(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = readOptional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporter === 'none' || (exporter === undefined && tracesEndpoint === undefined && endpoint === undefined)) return undefined;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = readOptional(env, name);
    if (protocol !== undefined && protocol !== 'http/json') throw new ConfigError(`${name} must be \`http/json\` (the one protocol spans are sent with), got \`${protocol}\``);
  }
  const tracesUrl = tracesEndpoint ?? `${(endpoint ?? DEFAULT_OTLP_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
  let url: URL;
  try {
    url = new URL(tracesUrl);
  } catch {
    throw new ConfigError(`the OTLP traces endpoint must be an http(s) URL, got \`${tracesUrl}\``);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`the OTLP traces endpoint must be an http(s) URL, got \`${tracesUrl}\``);
  const serviceName = readOptional(env, 'OTEL_SERVICE_NAME');
  const exportDelayMs = readInteger(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 3_600_000);
  return serviceName === undefined ? { tracesUrl, exportDelayMs } : { tracesUrl, serviceName, exportDelayMs };
}
