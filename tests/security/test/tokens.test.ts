import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '@custos/contracts';
import { TestAuthority, waitFor } from '@custos/test-kit';
import {
  call,
  createClient,
  eventBody,
  isProblem,
  leakedSecrets,
  query,
  securityStack,
  signingKeyOf,
  summary,
  TENANT_SCOPES,
  tokenOf,
  tokenSecrets,
  type Answer,
  type Credentials,
  type Stack,
} from './support/stack';

/**
 * The token attack suite: every kind of bad token is refused by pap and by pdp (both verify tokens
 * locally against auth's JWKS), with the RFC 6750 challenge. Forged tokens that need the real key are
 * signed with auth's own private key, read from its schema, so each refusal is for the one defect.
 */
let stack: Stack;
let adminToken: string;
let acme: Credentials;
let acmeToken: string;
let key: Awaited<ReturnType<typeof signingKeyOf>>;
const secrets: string[] = [];

beforeAll(async () => {
  stack = await securityStack();
  adminToken = await stack.adminToken();
  acme = await createClient(stack, adminToken, ['acme'], TENANT_SCOPES);
  acmeToken = await tokenOf(stack, acme);
  key = await signingKeyOf(stack);
  secrets.push(stack.env.BOOTSTRAP_CLIENT_SECRET!, acme.secret, ...tokenSecrets(adminToken), ...tokenSecrets(acmeToken));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const issuedAt = now();
  return {
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    sub: acme.id,
    iat: issuedAt,
    nbf: issuedAt,
    exp: issuedAt + 600,
    jti: randomUUID(),
    scope: TENANT_SCOPES.join(' '),
    solutions: ['acme'],
    ...overrides,
  };
}

/** Signed with auth's real key: only what `overrides` changes is wrong. */
function forge(overrides: Record<string, unknown> = {}, omit: string[] = []): string {
  const payload = claims(overrides);
  for (const name of omit) delete payload[name];
  const token = jwt.sign(payload, key.privateKey, { algorithm: 'ES256', keyid: key.kid, header: { alg: 'ES256', typ: 'at+jwt' } });
  secrets.push(...tokenSecrets(token));
  return token;
}

/** The two resource services, each asked something the acme token may do. */
const targets = {
  pap: (authorization?: string) =>
    call('GET', `${stack.pap.url}/ws/policy-ids`, { headers: authorization === undefined ? {} : { Authorization: authorization } }),
  pdp: (authorization?: string) =>
    call('POST', `${stack.pdps[0]!.url}/event`, {
      json: eventBody('acme', 'show'),
      headers: authorization === undefined ? {} : { Authorization: authorization },
    }),
  explain: (authorization?: string) =>
    call('POST', `${stack.pdps[0]!.url}/event/explain`, {
      json: eventBody('acme', 'show'),
      headers: authorization === undefined ? {} : { Authorization: authorization },
    }),
};

async function onEveryTarget(authorization: string | undefined): Promise<Record<string, Answer>> {
  return {
    pap: await targets.pap(authorization),
    pdp: await targets.pdp(authorization),
    explain: await targets.explain(authorization),
  };
}

function expectInvalidToken(answers: Record<string, Answer>, why?: RegExp): void {
  for (const [target, answer] of Object.entries(answers)) {
    const seen = { target, ...summary(answer), challenge: answer.headers.get('www-authenticate') };
    expect(seen).toEqual({
      target,
      status: 401,
      code: 'invalid_token',
      detail: why ? expect.stringMatching(why) : expect.any(String),
      challenge: expect.stringMatching(/^Bearer realm="custos", error="invalid_token", error_description="[^"\r\n]*"$/),
    });
    expect(isProblem(answer, 401, 'invalid_token')).toBe(true);
  }
}

describe('the controls: the attacks below fail only for their defect', () => {
  it('a token from /oauth/token is accepted by pap and pdp', async () => {
    for (const [target, answer] of Object.entries(await onEveryTarget(`Bearer ${acmeToken}`))) {
      expect({ target, status: answer.status }).toEqual({ target, status: 200 });
    }
  });

  it('a token forged with the real key and correct claims is accepted too', async () => {
    for (const [target, answer] of Object.entries(await onEveryTarget(`Bearer ${forge()}`))) {
      expect({ target, status: answer.status }).toEqual({ target, status: 200 });
    }
  });
});

describe('refused with 401 and the RFC 6750 challenge, by pap and pdp', () => {
  it('no token: a bare Bearer challenge', async () => {
    for (const header of [undefined, '', 'Basic YWRtaW46YWRtaW4=', 'Token abc']) {
      for (const [target, answer] of Object.entries(await onEveryTarget(header))) {
        expect({ target, ...summary(answer), challenge: answer.headers.get('www-authenticate') }).toEqual({
          target,
          status: 401,
          code: 'unauthorized',
          detail: expect.any(String),
          challenge: 'Bearer realm="custos"',
        });
      }
    }
  });

  it('garbage and malformed headers', async () => {
    for (const header of ['Bearer not-a-jwt', 'Bearer a.b.c', 'Bearer', `Bearer ${acmeToken} extra`, `Bearer ${'A'.repeat(8000)}`]) {
      expectInvalidToken(await onEveryTarget(header));
    }
  });

  it('alg `none`, with and without the real kid', async () => {
    for (const header of [
      { alg: 'none', typ: 'JWT' },
      { alg: 'none', typ: 'at+jwt', kid: key.kid },
      { alg: 'None', kid: key.kid },
      { alg: 'NONE', kid: key.kid },
    ]) {
      const token = `${b64(header)}.${b64(claims({ solutions: ['*'] }))}.`;
      expectInvalidToken(await onEveryTarget(`Bearer ${token}`), /algorithm/);
    }
  });

  it('HS256 signed with the public key (algorithm confusion), as PEM and as the JWK text', async () => {
    const jwks = (await call('GET', `${stack.auth.url}/.well-known/jwks.json`)).body as { keys: Array<Record<string, unknown>> };
    for (const secret of [key.publicPem, JSON.stringify(jwks.keys[0]), key.publicPem.trim()]) {
      const unsigned = `${b64({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${b64(claims({ solutions: ['*'] }))}`;
      const token = `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
      expectInvalidToken(await onEveryTarget(`Bearer ${token}`), /algorithm/);
    }
  });

  it('RS256 and ES384 with an attacker key and the real kid', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    for (const [privateKey, algorithm] of [[rsa, 'RS256'], [p384, 'ES384']] as const) {
      const token = jwt.sign(claims(), privateKey, { algorithm, keyid: key.kid });
      expectInvalidToken(await onEveryTarget(`Bearer ${token}`), /algorithm/);
    }
  });

  it('ES256 by another key: under the real kid (bad signature) and under an unknown kid', async () => {
    const attacker = new TestAuthority();
    expectInvalidToken(await onEveryTarget(`Bearer ${attacker.mint({ kid: key.kid, sub: acme.id, solutions: ['*'] })}`), /bad signature/);
    expectInvalidToken(await onEveryTarget(`Bearer ${attacker.mint({ sub: acme.id })}`), /unknown signing key/);
    expectInvalidToken(await onEveryTarget(`Bearer ${attacker.mint({ kid: '../../../etc/passwd' })}`), /unknown signing key/);
  });

  it('expired, and not valid yet (beyond the 30 s leeway)', async () => {
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({ iat: now() - 4000, nbf: now() - 4000, exp: now() - 120 })}`), /expired/);
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({ nbf: now() + 600, exp: now() + 1200 })}`), /not valid yet/);
  });

  it('wrong audience, wrong issuer, and claims missing', async () => {
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({ aud: 'another-api' })}`), /audience/);
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({ aud: [] })}`), /audience/);
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({ iss: 'https://evil.example' })}`), /issuer/);
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({}, ['iss'])}`), /issuer/);
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({}, ['exp'])}`), /claims/);
    expectInvalidToken(await onEveryTarget(`Bearer ${forge({}, ['sub'])}`), /claims/);
  });

  it('a real token with a tampered payload, header or signature', async () => {
    const [header, payload, signature] = acmeToken.split('.') as [string, string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const widened = b64({ ...decoded, solutions: ['*'], scope: 'event:decide policy:read policy:write client:admin' });
    const extended = b64({ ...decoded, exp: (decoded.exp as number) + 86_400 });
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const token of [
      `${header}.${widened}.${signature}`,
      `${header}.${extended}.${signature}`,
      `${header}.${payload}.${flipped}`,
      `${b64({ alg: 'ES256', kid: key.kid, typ: 'JWT', crit: ['exp'] })}.${payload}.${signature}`,
    ]) {
      expectInvalidToken(await onEveryTarget(`Bearer ${token}`), /bad signature/);
    }
    expectInvalidToken(await onEveryTarget(`Bearer ${header}.${payload}.`), /bad signature|malformed/);
    expectInvalidToken(await onEveryTarget(`Bearer ${header}.${payload}`), /malformed/);
  });
});

describe('refused with 403 insufficient_scope', () => {
  const expectForbidden = (answer: Answer, what: string) => {
    expect({ what, ...summary(answer), challenge: answer.headers.get('www-authenticate') }).toEqual({
      what,
      status: 403,
      code: 'insufficient_scope',
      detail: expect.any(String),
      challenge: expect.stringMatching(/^Bearer realm="custos", error="insufficient_scope", scope="[a-z:]+"$/),
    });
  };

  it('a token for another solution', async () => {
    expectForbidden(await call('GET', `${stack.pap.url}/ws/policy/urn:policy:beta:x`, { token: acmeToken }), 'pap show');
    expectForbidden(await call('POST', `${stack.pdps[0]!.url}/event`, { token: acmeToken, json: eventBody('beta', 'show') }), 'pdp event');
    expectForbidden(await call('POST', `${stack.pdps[0]!.url}/event/explain`, { token: acmeToken, json: eventBody('beta', 'show') }), 'pdp explain');
  });

  it('a token narrowed to other scopes, and admin operations without client:admin', async () => {
    const readOnly = await tokenOf(stack, acme, 'policy:read');
    secrets.push(...tokenSecrets(readOnly));
    expectForbidden(await call('POST', `${stack.pdps[0]!.url}/event`, { token: readOnly, json: eventBody('acme', 'show') }), 'pdp');
    expectForbidden(await call('DELETE', `${stack.pap.url}/ws/policy/urn:policy:acme:x`, { token: readOnly }), 'pap remove');
    expectForbidden(await call('GET', `${stack.auth.url}/clients`, { token: acmeToken }), 'auth list clients');
    expectForbidden(await call('POST', `${stack.auth.url}/clients`, { token: acmeToken, json: { solutions: ['acme'], scopes: ['event:decide'] } }), 'auth create');
  });

  it('claims of the wrong shape grant nothing (a `*` string is not the list `["*"]`)', async () => {
    const stringStar = forge({ solutions: '*' });
    expectForbidden(await call('POST', `${stack.pdps[0]!.url}/event`, { token: stringStar, json: eventBody('acme', 'show') }), 'pdp');
    const scopeList = forge({ scope: ['event:decide'] });
    expectForbidden(await call('POST', `${stack.pdps[0]!.url}/event`, { token: scopeList, json: eventBody('acme', 'show') }), 'pdp');
    expectForbidden(await call('GET', `${stack.pap.url}/ws/policy/urn:policy:beta:x`, { token: forge({ solutions: ['acme', 7, null] }) }), 'pap');
  });
});

describe('clients that are deleted or get a new secret', () => {
  it('a deleted client gets no new token at once, and its tokens are revoked instead of working until they expire', async () => {
    const doomed = await createClient(stack, adminToken, ['acme'], TENANT_SCOPES);
    const token = await tokenOf(stack, doomed);
    secrets.push(doomed.secret, ...tokenSecrets(token));
    expect((await targets.pap(`Bearer ${token}`)).status).toBe(200);
    expect((await call('DELETE', `${stack.auth.url}/clients/${doomed.id}`, { token: adminToken })).body).toBe(true);
    await expect(tokenOf(stack, doomed)).rejects.toThrow(/401/);

    // pap and pdp verify tokens offline, but apply auth's revocation list (docs/security.md; revocation.test.ts
    // measures how soon): the token is refused long before its hour is over.
    const claimsOf = jwt.decode(token) as jwt.JwtPayload;
    expect(claimsOf.exp! - claimsOf.iat!).toBe(3600);
    await waitFor(async () => Object.values(await onEveryTarget(`Bearer ${token}`)).every((answer) => answer.status === 401), {
      timeoutMs: 20_000,
      what: 'pap and pdp to refuse the deleted client’s token',
    });
    expectInvalidToken(await onEveryTarget(`Bearer ${token}`), /revoked/);
    // A token past its expiry is refused as expired, revoked or not.
    const expired = forge({ sub: doomed.id, iat: now() - 3700, nbf: now() - 3700, exp: now() - 100 });
    expectInvalidToken(await onEveryTarget(`Bearer ${expired}`), /expired/);
  });

  it('a rotated secret stops working at once; tokens issued before expire as usual', async () => {
    const client = await createClient(stack, adminToken, ['acme'], ['event:decide']);
    const before = await tokenOf(stack, client);
    const rotated = await call('POST', `${stack.auth.url}/clients/${client.id}/secret`, { token: adminToken });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.client_secret as string;
    secrets.push(client.secret, fresh, ...tokenSecrets(before));
    await expect(tokenOf(stack, client)).rejects.toThrow(/401/);
    const after = await tokenOf(stack, { id: client.id, secret: fresh });
    secrets.push(...tokenSecrets(after));
    expect((await targets.pdp(`Bearer ${after}`)).status).toBe(200);
    expect((await targets.pdp(`Bearer ${before}`)).status).toBe(200);
  });
});

describe('unknown kids cannot make pap and pdp flood auth', () => {
  it('each refetches the JWKS at most once per 5 s however many unknown kids arrive', async () => {
    const fetchesOf = () => stack.auth.output().split('\n').filter((line) => line.includes('"path":"/.well-known/jwks.json"')).length;
    const before = fetchesOf();
    const started = Date.now();
    const attacker = new TestAuthority();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? targets.pap : targets.pdp)(`Bearer ${attacker.mint({ kid: `forged-${index}` })}`)),
    );
    const elapsed = Date.now() - started;
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 401));
    const allowed = 2 * (1 + Math.ceil(elapsed / 5000));
    // Log lines are written in order: once a later request of ours is logged, every fetch before it is.
    const sentinel = `sentinel-${randomUUID()}`;
    await call('GET', `${stack.auth.url}/health/live`, { headers: { 'X-Request-Id': sentinel } });
    await waitFor(() => stack.auth.output().includes(sentinel), { what: 'the sentinel in the auth log' });
    const fetches = { count: fetchesOf() - before };
    expect(fetches.count).toBeLessThanOrEqual(allowed);
  });
});

describe('no secret leaks', () => {
  it('no client secret, token or token signature appears in any output or metrics of auth, pap or pdp', async () => {
    const rows = await query<{ private_key: string }>(stack, 'SELECT private_key FROM auth.signing_keys');
    const keyLines = rows.flatMap((row) => row.private_key.split('\n').filter((line) => line.length > 40));
    expect(await leakedSecrets([stack.auth, stack.pap, ...stack.pdps], [...secrets, ...keyLines])).toEqual([]);
  });

  it('the check itself can fail: a secret that was printed is found', async () => {
    // The access log prints paths: a secret put in a URL shows up, and the scanner must see it.
    const canary = `canary-${randomUUID()}`;
    await call('GET', `${stack.pap.url}/no-such-route/${canary}`);
    await waitFor(() => stack.pap.output().includes(canary), { what: 'the access log line' });
    expect(await leakedSecrets([stack.pap], [canary])).toEqual([`${canary.slice(0, 6)}…`]);
  });
});
