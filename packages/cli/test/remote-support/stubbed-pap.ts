import { startServer, type RecordedRequest, type Reply, type TestServer } from './http-server';
import { loggedIn, runCli, tempConfig, type CliRun } from './run-cli';

/** A stand-in pap answering with `handle`, and the command line logged in to it with a configuration of its own. */
export interface StubbedPap {
  /** Every request the stand-in received in this test. */
  readonly requests: RecordedRequest[];
  /** Runs `custos <args>` against the stand-in. */
  readonly cli: (...args: string[]) => Promise<CliRun>;
}

/** Registers the per-test stand-in and configuration: started and logged in before each test, removed after it. */
export function useStubbedPap(handle: (request: RecordedRequest) => Reply | Promise<Reply>): StubbedPap {
  let pap: TestServer | undefined;
  let config: Awaited<ReturnType<typeof tempConfig>> | undefined;
  beforeEach(async () => {
    pap = await startServer(handle);
    config = await tempConfig();
    await loggedIn(config.env, { pap: pap.url });
  });
  afterEach(async () => {
    await pap?.close();
    await config?.cleanup();
  });
  return {
    get requests() {
      if (pap === undefined) throw new Error('the stand-in pap runs only during a test');
      return pap.requests;
    },
    cli: (...args) => runCli(args, { env: config?.env ?? {} }),
  };
}
