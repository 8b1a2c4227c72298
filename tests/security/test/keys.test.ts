import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '@custos/contracts';
import { repoRoot, TestAuthority, waitFor } from '@custos/test-kit';
import {
  call,
  eventBody,
  leakedSecrets,
  policyXml,
  securityStack,
  signingKeyOf,
  tokenOf,
  tokenSecrets,
  type Credentials,
  type Stack,
} from './support/stack';

/**
 * First setup with the CLI (npm run clients), and signing-key rotation under continuous traffic:
 * no request with a valid token is refused at any moment, although unknown kids keep pap's and
 * pdp's JWKS refetch rate limit busy the whole time.
 */
const run = promisify(execFile);
const CLI = path.join(repoRoot(), 'apps', 'auth-service', 'dist', 'cli.js');

let stack: Stack;
const secrets: string[] = [];

beforeAll(async () => {
  stack = await securityStack();
  secrets.push(stack.env.BOOTSTRAP_CLIENT_SECRET!);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: stack.database.url } });
}

const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid as string;
const jwksKids = async () => ((await call('GET', `${stack.auth.url}/.well-known/jwks.json`)).body as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);

describe('the clients CLI, as a new user runs it', () => {
  let client: Credentials;

  it('creates a restricted client whose credentials work as the README shows', async () => {
    const { stdout, stderr } = await cli('create', '--solutions', 'acme', '--scopes', 'event:decide,policy:read,policy:write', '--description', 'hr portal');
    const id = /^client_id:\s+(\S+)$/m.exec(stdout)?.[1];
    const secret = /^client_secret:\s+(\S+)$/m.exec(stdout)?.[1];
    expect(id).toMatch(/^c_/);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stderr).toMatch(/shown only now/);
    client = { id: id!, secret: secret! };
    secrets.push(client.secret);

    // README step 1, with HTTP Basic as curl -u does it.
    const response = await fetch(`${stack.auth.url}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(200);
    const token = ((await response.json()) as { access_token: string }).access_token;
    secrets.push(...tokenSecrets(token));
    expect((await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: policyXml('acme', 'cli', 'show') })).status).toBe(201);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/urn:policy:acme:cli/deploy`, { token });
    const decision = await call('POST', `${stack.pdps[0]!.url}/event`, {
      token,
      json: eventBody('acme', 'show'),
      headers: { 'Min-Policy-Revision': deployed.headers.get('policy-revision')! },
    });
    expect(decision.body.eventAllowed).toBe(false);
    // Restricted: no other solution, no scope it was not given.
    expect((await call('POST', `${stack.pdps[0]!.url}/event`, { token, json: eventBody('beta', 'show') })).status).toBe(403);
    expect((await call('GET', `${stack.pap.url}/ws/component`, { token })).status).toBe(403);
  });

  it('lists it without the secret, rotates the secret (the old one fails at once) and deletes it', async () => {
    const { stdout } = await cli('list', '--json');
    const listed = JSON.parse(stdout) as Array<{ client_id: string; scopes: string[] }>;
    expect(listed.find((c) => c.client_id === client.id)?.scopes).toEqual(['event:decide', 'policy:read', 'policy:write']);
    expect(stdout).not.toContain(client.secret);

    const rotated = JSON.parse((await cli('rotate-secret', client.id, '--json')).stdout) as { client_secret: string };
    secrets.push(rotated.client_secret);
    await expect(tokenOf(stack, client)).rejects.toThrow(/401/);
    await expect(tokenOf(stack, { id: client.id, secret: rotated.client_secret })).resolves.toMatch(/\./);

    expect((await cli('delete', client.id)).stdout).toBe(`deleted ${client.id}\n`);
    await expect(tokenOf(stack, { id: client.id, secret: rotated.client_secret })).rejects.toThrow(/401/);
    await expect(cli('delete', client.id)).rejects.toMatchObject({ code: 1 });
  });
});

describe('signing-key rotation without downtime', () => {
  const ACTIVATE_IN_SECONDS = 20;
  /** An admin token signed with the old key before the rotation. */
  let before: string;

  it('old and new tokens work throughout; the new key signs after its activation', async () => {
    const adminClient = { id: stack.env.BOOTSTRAP_CLIENT_ID!, secret: stack.env.BOOTSTRAP_CLIENT_SECRET! };
    before = await tokenOf(stack, adminClient);
    secrets.push(...tokenSecrets(before));
    const oldKid = kidOf(before);

    const rotation = JSON.parse((await cli('rotate-key', '--activate-in', String(ACTIVATE_IN_SECONDS), '--json')).stdout) as {
      key: { kid: string; state: string; activates_at: string };
      retiring: Array<{ kid: string; retires_at: string }>;
    };
    const newKid = rotation.key.kid;
    expect(rotation.key.state).toBe('pending');
    expect(rotation.retiring.map((k) => k.kid)).toEqual([oldKid]);
    expect(Date.parse(rotation.retiring[0]!.retires_at) - Date.parse(rotation.key.activates_at)).toBeGreaterThanOrEqual(3600 * 1000);

    // Continuous traffic: a fresh token each round, used at pap and pdp, while forged unknown kids keep
    // both refetching the key set (so their 5 s refetch limit is in force whenever the new kid shows up).
    const attacker = new TestAuthority();
    const refused: string[] = [];
    let rounds = 0;
    let newKidRounds = 0;
    await waitFor(
      async () => {
        rounds += 1;
        await Promise.all([
          call('GET', `${stack.pap.url}/ws/policy-ids`, { token: attacker.mint({ kid: `unknown-${rounds}` }) }),
          call('POST', `${stack.pdps[0]!.url}/event`, { token: attacker.mint({ kid: `unknown-${rounds}` }), json: eventBody('acme', 'show') }),
        ]);
        const token = await tokenOf(stack, adminClient);
        secrets.push(...tokenSecrets(token));
        const kid = kidOf(token);
        for (const answer of [
          await call('GET', `${stack.pap.url}/ws/policy-ids`, { token }),
          await call('POST', `${stack.pdps[0]!.url}/event`, { token, json: eventBody('acme', 'show') }),
          await call('POST', `${stack.pdps[0]!.url}/event`, { token: before, json: eventBody('acme', 'show') }),
        ]) {
          if (answer.status !== 200) refused.push(`round ${rounds}, kid ${kid === newKid ? 'new' : 'old'}: ${answer.status} ${answer.body?.detail}`);
        }
        if (kid === newKid) newKidRounds += 1;
        else expect(kid).toBe(oldKid);
        return newKidRounds >= 5;
      },
      { timeoutMs: (ACTIVATE_IN_SECONDS + 40) * 1000, intervalMs: 250, what: 'tokens signed with the new key' },
    );
    expect(refused).toEqual([]);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(rotation.key.activates_at) - 1000);
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect((await call('GET', `${stack.pap.url}/ws/policy-ids`, { token: before })).status).toBe(200);
    console.log(`key rotation: ${rounds} rounds of traffic, ${newKidRounds} with the new key, none refused`);
  }, 120_000);

  it('retire-key withdraws the old key: it leaves the JWKS and auth stops accepting tokens signed with it', async () => {
    const keys = JSON.parse((await cli('keys', '--json')).stdout) as Array<{ kid: string; state: string }>;
    const old = keys.find((k) => k.state === 'retiring')!;
    const active = keys.find((k) => k.state === 'active')!;
    expect(kidOf(before)).toBe(old.kid);
    // What a thief of the old key would do: sign fresh admin tokens with it.
    const stolen = await signingKeyOf(stack, old.kid);
    const forge = () =>
      jwt.sign({ scope: 'client:admin', solutions: ['*'], jti: randomUUID() }, stolen.privateKey, {
        algorithm: 'ES256',
        keyid: old.kid,
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        subject: stack.env.BOOTSTRAP_CLIENT_ID!,
        expiresIn: 600,
      });
    expect((await call('GET', `${stack.auth.url}/clients`, { token: forge() })).status).toBe(200);

    await expect(cli('retire-key', active.kid)).rejects.toMatchObject({ code: 1 });
    expect((await cli('retire-key', old.kid)).stdout).toMatch(/^retired: /);
    await waitFor(async () => !(await jwksKids()).includes(old.kid), { timeoutMs: 20_000, what: 'the old key to leave the JWKS' });
    await waitFor(async () => (await call('GET', `${stack.auth.url}/clients`, { token: forge() })).status === 401, {
      timeoutMs: 20_000,
      what: 'auth to refuse tokens signed with the retired key',
    });
    const current = await tokenOf(stack, { id: stack.env.BOOTSTRAP_CLIENT_ID!, secret: stack.env.BOOTSTRAP_CLIENT_SECRET! });
    expect(kidOf(current)).toBe(active.kid);
    expect((await call('GET', `${stack.auth.url}/clients`, { token: current })).status).toBe(200);
  }, 60_000);

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([stack.auth, stack.pap, ...stack.pdps], secrets)).toEqual([]);
  });
});
