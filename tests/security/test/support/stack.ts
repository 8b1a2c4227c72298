import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Client } from 'pg';
import { call, clientToken, startStack, TEST_NATS_URL, type Answer, type RunningService, type Stack } from '@custos/test-kit';

export { call, type Answer, type Stack };

/** A stack of auth, pap and one pdp as real processes on a fresh database and NATS prefix. */
export function securityStack(replicas = 1): Promise<Stack> {
  return startStack({ natsUrl: TEST_NATS_URL, replicas });
}

export interface Credentials {
  id: string;
  secret: string;
}

/** A client registered through the real admin API (POST /clients). */
export async function createClient(stack: Stack, adminToken: string, solutions: string[], scopes: string[]): Promise<Credentials> {
  const answer = await call('POST', `${stack.auth.url}/clients`, { token: adminToken, json: { solutions, scopes, description: 'security test' } });
  if (answer.status !== 201) throw new Error(`client creation failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { id: answer.body.client_id as string, secret: answer.body.client_secret as string };
}

export const tokenOf = (stack: Stack, client: Credentials, scope?: string): Promise<string> =>
  clientToken(stack.auth.url, client.id, client.secret, scope);

export const TENANT_SCOPES = ['event:decide', 'policy:read', 'policy:write', 'component:read', 'component:write'];

const NAMESPACES =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" ' +
  'xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" ' +
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';

/** A policy with one mechanism for `action` whose body (if, else, decisions) is `body`. */
export function policyXml(solution: string, name: string, action: string, body = '<if><constant:true/><then><inhibit/></then></if>'): string {
  return `<policy ${NAMESPACES} id="urn:policy:${solution}:${name}" name="${name}">
  <mechanism event="urn:action:${solution}:${action}">${body}</mechanism>
</policy>`;
}

export function eventBody(solution: string, action: string, parameters: Array<{ name: string; value: unknown }> = []) {
  return {
    actionId: { scope: solution, action },
    timestamp: 1763798400000,
    parameters: parameters.map(({ name, value }) => ({
      name,
      value: { value, type: typeof value === 'string' ? 'java.lang.String' : 'java.lang.Object', isComplex: typeof value === 'object' },
    })),
  };
}

/** A problem+json answer with this status and code (api.md §5). */
export function isProblem(answer: Answer, status: number, code: string): boolean {
  return (
    answer.status === status &&
    (answer.headers.get('content-type') ?? '').startsWith('application/problem+json') &&
    answer.body?.code === code &&
    answer.body?.type === `urn:custos:problem:${code}` &&
    answer.body?.status === status
  );
}

/** The answer in a form that names what differs when an expectation fails. */
export const summary = (answer: Answer) => ({ status: answer.status, code: answer.body?.code, detail: answer.body?.detail });

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the service sent, field by field
  body: any;
}

/** An HTTP request whose path goes out exactly as written (fetch would normalise `..` and `%2e`). */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Bytes written to a socket as they are (CR and LF inside headers, which no HTTP client sends). */
export function rawSocket(baseUrl: string, text: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(text);
  });
}

/** Resident memory of a process in bytes (VmRSS of /proc/<pid>/status). */
export function residentBytes(service: RunningService): number {
  const status = readFileSync(`/proc/${service.process.pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for ${service.name}`);
  return Number(match[1]) * 1024;
}

export const isRunning = (service: RunningService) => service.process.exitCode === null && service.process.signalCode === null;

/** The key auth signs with (or the key `kid`), read from its schema: fair in a test, to forge tokens only a key holder could make. */
export async function signingKeyOf(stack: Stack, kid?: string): Promise<{ kid: string; privateKey: KeyObject; publicPem: string }> {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    const result = await client.query<{ kid: string; private_key: string }>(
      kid === undefined
        ? `SELECT kid, private_key FROM auth.signing_keys
            WHERE activates_at <= now() AND (retires_at IS NULL OR retires_at > now())
            ORDER BY activates_at DESC LIMIT 1`
        : 'SELECT kid, private_key FROM auth.signing_keys WHERE kid = $1',
      kid === undefined ? [] : [kid],
    );
    const row = result.rows[0];
    if (!row) throw new Error('auth has no signing key');
    const privateKey = createPrivateKey(row.private_key);
    return { kid: row.kid, privateKey, publicPem: createPublicKey(privateKey).export({ format: 'pem', type: 'spki' }).toString() };
  } finally {
    await client.end();
  }
}

/** Runs SQL on the stack's database (for state checks the API cannot make). */
export async function query<T extends object>(stack: Stack, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Every place a secret could leak to: the processes' output so far and their /metrics. Returns
 * the secrets found (as their first characters, so the failure message does not print them whole).
 */
export async function leakedSecrets(services: RunningService[], secrets: string[]): Promise<string[]> {
  const texts: string[] = [];
  for (const service of services) {
    texts.push(service.output());
    texts.push(await (await fetch(`${service.url}/metrics`)).text());
  }
  const haystack = texts.join('\n');
  const found: string[] = [];
  for (const secret of new Set(secrets)) {
    if (secret.length < 8) throw new Error('a secret to look for must have at least 8 characters');
    if (haystack.includes(secret)) found.push(`${secret.slice(0, 6)}…`);
  }
  return found;
}

/** The parts of a JWT that are secret on their own: the whole token and its signature. */
export function tokenSecrets(token: string): string[] {
  const signature = token.split('.')[2] ?? '';
  return signature.length >= 8 ? [token, signature] : [token];
}
