import jwt from 'jsonwebtoken';
import { HttpProblem, TokenVerifier } from '@custos/service-kit';
import { TestAuthority } from '@custos/test-kit';

describe('TokenVerifier', () => {
  const authority = new TestAuthority();
  let verifier: TokenVerifier;

  beforeAll(async () => {
    await authority.start();
    verifier = new TokenVerifier({ jwksUrl: authority.jwksUrl, minRefetchIntervalMs: 60_000 });
  });
  afterAll(() => authority.stop());

  async function rejection(header: string | undefined): Promise<HttpProblem> {
    try {
      await verifier.authenticate(header);
    } catch (error) {
      if (error instanceof HttpProblem) return error;
      throw error;
    }
    throw new Error('token was accepted');
  }

  it('accepts a valid token and exposes scopes and solutions', async () => {
    const token = authority.mint({ sub: 'c1', scopes: ['policy:read'], solutions: ['acme'] });
    const principal = await verifier.authenticate(`Bearer ${token}`);
    expect(principal.clientId).toBe('c1');
    expect(principal.hasScope('policy:read')).toBe(true);
    expect(principal.hasScope('policy:write')).toBe(false);
    expect(principal.mayAccess('acme')).toBe(true);
    expect(principal.mayAccess('other')).toBe(false);
  });

  it('accepts concurrent first requests while the first key fetch is still running', async () => {
    const fresh = new TokenVerifier({ jwksUrl: authority.jwksUrl, minRefetchIntervalMs: 60_000 });
    const token = authority.mint({ sub: 'c2', solutions: ['acme'] });
    const principals = await Promise.all(Array.from({ length: 5 }, () => fresh.authenticate(`Bearer ${token}`)));
    expect(principals.map((p) => p.clientId)).toEqual(['c2', 'c2', 'c2', 'c2', 'c2']);
  });

  it('treats `*` as every solution', async () => {
    const principal = await verifier.authenticate(`Bearer ${authority.mint({ solutions: ['*'] })}`);
    expect(principal.mayAccess('anything')).toBe(true);
  });

  it('fetches the JWKS once for many tokens', async () => {
    const before = authority.jwksFetches;
    for (let i = 0; i < 5; i++) await verifier.authenticate(`Bearer ${authority.mint()}`);
    expect(authority.jwksFetches).toBe(before);
  });

  it('asks for a bearer token when none is sent', async () => {
    const problem = await rejection(undefined);
    expect(problem.status).toBe(401);
    expect(problem.headers['WWW-Authenticate']).toBe('Bearer realm="custos"');
  });

  it.each([
    ['expired', () => authority.mint({ expiresInSeconds: -120 }), 'the token has expired'],
    ['not yet valid', () => authority.mint({ notBeforeSeconds: 600 }), 'the token is not valid yet'],
    ['wrong audience', () => authority.mint({ audience: 'someone-else' }), 'wrong audience'],
    ['wrong issuer', () => authority.mint({ issuer: 'evil' }), 'wrong issuer'],
    ['unknown kid', () => authority.mint({ kid: 'nope' }), 'unknown signing key'],
    ['garbage', () => 'not.a.token', 'malformed token'],
    ['alg none', () => jwt.sign({ sub: 'x', scope: 'event:decide', solutions: ['*'] }, '', { algorithm: 'none' }), 'algorithm must be ES256'],
    [
      'HS256 signed with the public key',
      () => jwt.sign({ sub: 'x' }, authority.publicKeyPem(), { algorithm: 'HS256', keyid: authority.kid }),
      'algorithm must be ES256',
    ],
    [
      'tampered payload',
      () => {
        const [header, payload, signature] = authority.mint({ solutions: ['acme'] }).split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
        claims.solutions = ['*'];
        return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
      },
      'bad signature',
    ],
  ])('refuses a token that is %s', async (_name, makeToken, why) => {
    const problem = await rejection(`Bearer ${makeToken()}`);
    expect(problem.status).toBe(401);
    expect(problem.code).toBe('invalid_token');
    expect(problem.detail).toContain(why);
    expect(problem.headers['WWW-Authenticate']).toContain('error="invalid_token"');
  });

  it('refuses a malformed Authorization header', async () => {
    const problem = await rejection('Bearer abc def');
    expect(problem.status).toBe(401);
    expect(problem.code).toBe('invalid_token');
  });

  it('answers 503 when the keys cannot be fetched', async () => {
    const lonely = new TokenVerifier({ jwksUrl: 'http://127.0.0.1:1/.well-known/jwks.json' });
    await expect(lonely.authenticate(`Bearer ${authority.mint()}`)).rejects.toMatchObject({ status: 503 });
  });
});
