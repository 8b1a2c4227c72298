import type { Event } from '@custos/contracts';
import { CustosClient } from '../src/client';
import { event } from '../src/event-builder';
import type { CustosClientOptions } from '../src/options';
import type { RetryInfo } from '../src/retry';
import { json, TestServer, tokenServer, type Handler } from './servers';

/** A token endpoint and a pdp stand-in, fresh for each test, and clients of the two. */
export interface ClientBench {
  tokens: Awaited<ReturnType<typeof tokenServer>>;
  /** Replaceable: a test that stops it to stand for a pdp down puts a new one here. */
  pdp: TestServer;
  /** The retries reported by the clients this test made (`onRetry`), and by no other test's. */
  retries: RetryInfo[];
  /** A client of this test's servers with 1–5 ms retry pauses; `options` replace any of it. */
  client(options?: Partial<CustosClientOptions>): CustosClient;
}

/**
 * Registers the per-test servers (started before each test with `handler` as the pdp's answer, stopped after it).
 * Each client reports its retries into the list of the test that made it: a client of an earlier test may still be
 * fetching a token after its test ended (its call timed out first, the shared token fetch did not), and its retries
 * against the stopped token server must not land in the next test's list.
 */
export function useClientBench(handler: () => Handler): ClientBench {
  const bench = {
    retries: [] as RetryInfo[],
    client(options: Partial<CustosClientOptions> = {}): CustosClient {
      const retries = bench.retries;
      return new CustosClient({
        pdpUrl: bench.pdp.url,
        authUrl: bench.tokens.url,
        clientId: 'pep',
        clientSecret: 'pep-secret',
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
        onRetry: (info) => retries.push(info),
        ...options,
      });
    },
  } as ClientBench;
  beforeEach(async () => {
    bench.retries = [];
    bench.tokens = await tokenServer();
    bench.pdp = await TestServer.start(handler());
  });
  afterEach(async () => {
    await bench.tokens.stop();
    await bench.pdp.stop();
  });
  return bench;
}

/** The error `promise` rejects with; a resolution fails the test. */
export const failureOf = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as Error,
  );

/** The event the client tests ask about: an employee record with a name, a salary and a reason. */
export const employee = (): Event =>
  event('acme', 'show-employee', { user: { name: { firstName: 'Ann', lastName: 'Lee' }, salary: 5234 }, reason: 'review' }, { timestamp: 1763798400000 });

/** The pdp answers 200 with `body`, by default at revision 3. */
export const answer =
  (body: unknown, headers: Record<string, string> = { 'Policy-Revision': '3' }): Handler =>
  (_, res) =>
    json(res, 200, body, headers);
