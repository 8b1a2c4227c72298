import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { call, repoRoot, waitFor, type Stack } from '@custos/test-kit';

/** Helpers of the PEP SDK's system test: policies, clients, key rotation and the README's examples. */
const run = promisify(execFile);

export const NS = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  'xmlns:constant="http://www.mydata-control.de/4.0/constant"',
  'xmlns:event="http://www.mydata-control.de/4.0/event"',
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"',
].join(' ');

/** `value`, or a clear failure naming what was missing. */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing`);
  return value;
}

/** Adds and deploys a policy; the revision at which it took effect. */
export async function deploy(stack: Stack, token: string, xml: string): Promise<number> {
  const id = /\bid="(urn:policy:[^"]+)"/.exec(xml)?.[1];
  if (id === undefined) throw new Error('the policy has no id');
  const added = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml });
  if (added.status !== 201) throw new Error(`adding ${id} failed: ${added.status} ${JSON.stringify(added.body)}`);
  const deployed = await call('POST', `${stack.pap.url}/ws/policy/${id}/deploy`, { token });
  if (deployed.body !== true) throw new Error(`deploying ${id} failed: ${deployed.status}`);
  return Number(deployed.headers.get('policy-revision'));
}

/** A client as an operator registers one for an enforcement point: solution acme, scope event:decide only. */
export async function registerPep(stack: Stack, adminToken: string): Promise<{ id: string; secret: string }> {
  const created = await call('POST', `${stack.auth.url}/clients`, {
    token: adminToken,
    json: { solutions: ['acme'], scopes: ['event:decide'], description: 'HR portal PEP' },
  });
  if (created.status !== 201) throw new Error(`registering the pep failed: ${created.status}`);
  const body = created.body as { client_id: string; client_secret: string };
  return { id: body.client_id, secret: body.client_secret };
}

/** The auth-service's clients command, run against the stack's database as an operator would. */
export async function clientsCli(stack: Stack, ...args: string[]): Promise<string> {
  const cli = path.join(repoRoot(), 'apps', 'auth-service', 'dist', 'cli.js');
  const { stdout } = await run(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: stack.database.url } });
  return stdout;
}

/** The key ids the auth-service publishes now. */
export async function publishedKids(stack: Stack): Promise<string[]> {
  const jwks = await call('GET', `${stack.auth.url}/.well-known/jwks.json`);
  return (jwks.body as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
}

/** How many `POST /event` a pdp refused with a 4xx so far (its metrics). */
export async function rejectedDecisions(url: string): Promise<number> {
  const text = (await call('GET', `${url}/metrics`)).body as string;
  const match = /^decisions_total\{[^}]*outcome="rejected"[^}]*\} (\d+)$/m.exec(text);
  return match ? Number(match[1]) : 0;
}

/** The policy of the main README's walk-through, exactly as a reader deploys it. */
export function walkthroughPolicy(): string {
  const readme = readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
  const section = /<!-- walkthrough:start -->([\s\S]*?)<!-- walkthrough:end -->/.exec(readme)?.[1] ?? '';
  const policy = /<policy[\s\S]*?<\/policy>/.exec(section)?.[0];
  if (policy === undefined) throw new Error('the README walk-through has no policy');
  return policy;
}

/** The SDK README's `js` blocks by example name; every one must be marked as an example. */
export function readmeExamples(): Map<string, string> {
  const readme = readFileSync(path.join(repoRoot(), 'packages', 'pep', 'README.md'), 'utf8');
  const examples = new Map<string, string>();
  for (const match of readme.matchAll(/<!-- example:([a-z-]+) -->\n```js\n([\s\S]*?)```\n<!-- \/example -->/g)) {
    examples.set(match[1] ?? '', match[2] ?? '');
  }
  const blocks = readme.match(/^```js$/gm)?.length ?? 0;
  if (blocks !== examples.size) throw new Error(`the README has ${blocks} js blocks but ${examples.size} marked examples`);
  return examples;
}

/** Runs an example as a reader would: an ES module in the repository, importing the built package. */
export async function runExample(code: string, env: Record<string, string>): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], {
    cwd: repoRoot(),
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return stdout.split('\n').filter((line) => line !== '');
}

/** Starts an example that serves HTTP on `port` and waits until it answers. */
export async function startExample(code: string, env: Record<string, string>, port: number): Promise<{ output: () => string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', code], {
    cwd: repoRoot(),
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/`)).status > 0, { timeoutMs: 15_000, what: `the example to listen (${output})` });
  } catch (error) {
    await stop();
    throw error;
  }
  return { output: () => output, stop };
}
