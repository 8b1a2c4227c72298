import { loadPolicyTree } from '@custos/policy-engine';
import type { Express } from 'express';
import type { Pool } from 'pg';
import { ALL_SCOPES } from '@custos/contracts';
import { createLogger, createMetrics, type Logger, type ServiceMetrics, type TokenVerifier } from '@custos/service-kit';
import { createTestDatabase, TestAuthority, type MintOptions, type TestDatabase } from '@custos/test-kit';
import { SERVICE_NAME, type AppDeps } from '../src/app';
import { composePap, type PapOverrides } from '../src/compose';
import { readPapConfig } from '../src/config';

/** Logs go nowhere unless LOG_LEVEL asks for them (then to stderr). */
export function testLogger(): Logger {
  const level = process.env.LOG_LEVEL ?? 'silent';
  return createLogger(SERVICE_NAME, level, { write: (line: string) => void process.stderr.write(line) });
}

export interface Harness {
  db: TestDatabase;
  pool: Pool;
  authority: TestAuthority;
  verifier: TokenVerifier;
  logger: Logger;
  metrics: ServiceMetrics;
  /** What the app was composed of, to build another app on the same parts. */
  deps: AppDeps;
  app: Express;
  /** A token with every scope for solution `acme` unless told otherwise. */
  token(options?: MintOptions): string;
  /** `Bearer <token>`. */
  bearer(options?: MintOptions): string;
  close(): Promise<void>;
}

/**
 * A fresh database with pap's schema, a JWKS server and a pap composed on them as main.ts composes it, without
 * propagation: tests that need a publisher start their own and pass its wake-up as `onChange`.
 */
export async function startHarness(overrides: PapOverrides = {}): Promise<Harness> {
  const db = await createTestDatabase('pap_test');
  const authority = await new TestAuthority().start();
  const config = readPapConfig({ DATABASE_URL: db.url, AUTH_URL: authority.url });
  const pap = composePap(config, {
    logger: testLogger(),
    metrics: createMetrics(SERVICE_NAME, false),
    pool: { max: 20 },
    propagation: false,
    ...overrides,
  });
  await pap.start();
  const token = (options: MintOptions = {}) => authority.mint({ scopes: ALL_SCOPES, solutions: ['acme'], ...options });
  const { pool, verifier, logger, metrics } = pap.deps;
  return {
    db,
    pool,
    authority,
    verifier,
    logger,
    metrics,
    deps: pap.deps,
    app: pap.app,
    token,
    bearer: (options) => `Bearer ${token(options)}`,
    close: async () => {
      await pap.stop();
      await authority.stop();
      await db.drop();
    },
  };
}

export const MYDATA = 'http://www.mydata-control.de/4.0/mydataLanguage';
export const CONSTANT = 'http://www.mydata-control.de/4.0/constant';

export interface PolicyOptions {
  name?: string;
  description?: string;
  /** Action URN of the mechanism; defaults to `urn:action:<solution>:show`. */
  action?: string;
  decision?: 'allow' | 'inhibit';
}

/** A small valid policy. */
export function policyXml(id: string, options: PolicyOptions = {}): string {
  const solution = id.split(':')[2];
  const action = options.action ?? `urn:action:${solution}:show`;
  const name = options.name === undefined ? '' : ` name="${options.name}"`;
  const description = options.description === undefined ? '' : ` description="${options.description}"`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<policy xmlns="${MYDATA}" xmlns:constant="${CONSTANT}" id="${id}"${name}${description}>
  <mechanism event="${action}">
    <if>
      <equals><constant:string value="a"/><constant:string value="a"/></equals>
      <then><${options.decision ?? 'inhibit'}/></then>
    </if>
  </mechanism>
</policy>
`;
}

const TIMER_NS = 'http://www.mydata-control.de/4.0/mydataLanguageTimer';

/** A small valid timer, described `nightly`, whose one event (default `urn:action:<solution>:cleanup`) has a parameter. */
export function timerXml(id: string, cron = '0 0 2 * * ?', action = `urn:action:${id.split(':')[2]}:cleanup`): string {
  return `<?xml version="1.0"?>
<timer xmlns="${TIMER_NS}" xmlns:parameter="http://www.mydata-control.de/4.0/parameter" id="${id}" cron="${cron}" description="nightly">
  <event action="${action}"><parameter:string name="scope" value="all"/></event>
</timer>`;
}

export interface OutboxEntry {
  revision: number;
  message: { revision: number; type: string; policy?: { id: string; xml: string }; policyId?: string; component?: unknown; componentId?: string };
  published: boolean;
}

export async function outbox(pool: Pool): Promise<OutboxEntry[]> {
  const result = await pool.query<{ revision: string; message: OutboxEntry['message']; published_at: Date | null }>(
    'SELECT revision, message, published_at FROM pap.outbox ORDER BY revision',
  );
  return result.rows.map((row) => ({ revision: Number(row.revision), message: row.message, published: row.published_at !== null }));
}

export async function revision(pool: Pool): Promise<number> {
  const result = await pool.query<{ revision: string }>('SELECT revision FROM pap.state');
  return Number(result.rows[0]!.revision);
}

/** Everything pap stores, to prove that a failed request changed nothing. */
export async function dump(pool: Pool): Promise<unknown> {
  const [policies, components, state, box, timers] = await Promise.all([
    pool.query('SELECT * FROM pap.policies ORDER BY id'),
    pool.query('SELECT * FROM pap.components ORDER BY id'),
    pool.query('SELECT * FROM pap.state'),
    pool.query('SELECT * FROM pap.outbox ORDER BY revision'),
    pool.query('SELECT * FROM pap.timers ORDER BY id'),
  ]);
  return { policies: policies.rows, components: components.rows, state: state.rows, outbox: box.rows, timers: timers.rows };
}

/**
 * A deployed policy as pap ships it: the XML and the engine's checked tree of that XML (through JSON, as it is
 * stored and sent), and `deployedAt`, the revision its current deployment began at, when given.
 */
export function deployedPolicy(
  id: string,
  xml: string,
  deployedAt?: number,
): { id: string; xml: string; tree: Record<string, unknown>; deployedAt?: number } {
  const outcome = loadPolicyTree(xml);
  if (!outcome.ok) throw new Error(`the engine refuses ${id}: ${JSON.stringify(outcome.diagnostics)}`);
  const tree = JSON.parse(JSON.stringify(outcome.tree)) as Record<string, unknown>;
  return deployedAt === undefined ? { id, xml, tree } : { id, xml, tree, deployedAt };
}

/**
 * Registers a harness started before the file's tests (with `overrides`) and closed after them; the function returns
 * it, and throws when called before it started (call it inside hooks and tests).
 */
export function useHarness(overrides: PapOverrides = {}): () => Harness {
  let started: Harness | undefined;
  beforeAll(async () => {
    started = await startHarness(overrides);
  });
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (started === undefined) throw new Error('the harness is read before it started (use it in hooks and tests)');
    return started;
  };
}
