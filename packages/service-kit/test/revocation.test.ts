import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import {
  HttpProblem,
  parseRevocationDocument,
  revocationDigest,
  RevocationList,
  RevocationSet,
  revocationSubject,
  toRevocationDocument,
  TokenVerifier,
  type RevocationEntry,
  type RevocationMessages,
} from '@custos/service-kit';
import { TestAuthority, waitFor } from '@custos/test-kit';

const digest = revocationDigest;
const now = () => Math.floor(Date.now() / 1000);

describe('the revocation document', () => {
  it('round-trips entries and names ids only by digest', () => {
    const entries: RevocationEntry[] = [
      { type: 'sub', id: digest('c_client'), notAfter: 100, expiresAt: 3760 },
      { type: 'jti', id: digest('token-1'), expiresAt: 200 },
    ];
    const document = toRevocationDocument(entries);
    expect(JSON.stringify(document)).not.toContain('c_client');
    expect(document.revocations[0]).toEqual({ type: 'sub', id: digest('c_client'), not_after: 100, expires_at: 3760 });
    expect(parseRevocationDocument(JSON.parse(JSON.stringify(document)))).toEqual(entries);
  });

  it('refuses malformed documents whole', () => {
    const good = { type: 'jti', id: digest('x'), expires_at: 1 };
    for (const bad of [null, {}, { revocations: {} }, { revocations: [{ ...good, type: 'kid' }] }, { revocations: [good, { ...good, id: 'c_client' }] },
      { revocations: [{ ...good, expires_at: -1 }] }, { revocations: [{ ...good, expires_at: '1' }] }, { revocations: [{ type: 'sub', id: digest('x'), expires_at: 1 }] }]) {
      expect(() => parseRevocationDocument(bad)).toThrow();
    }
  });
});

describe('RevocationSet', () => {
  const at = 1_000_000;
  const set = () => new RevocationSet(() => at);

  it('a client revocation covers its tokens issued up to not_after, not later ones; a token revocation one token', () => {
    const revoked = set();
    revoked.merge([
      { type: 'sub', id: digest('c1'), notAfter: at - 10, expiresAt: at + 3600 },
      { type: 'jti', id: digest('t1'), expiresAt: at + 100 },
    ]);
    expect(revoked.isRevoked({ subjectDigest: digest('c1'), tokenDigest: digest('a'), issuedAt: at - 10 })).toBe(true);
    expect(revoked.isRevoked({ subjectDigest: digest('c1'), tokenDigest: digest('b'), issuedAt: at - 9 })).toBe(false);
    expect(revoked.isRevoked({ subjectDigest: digest('c2'), tokenDigest: digest('t1'), issuedAt: at })).toBe(true);
    expect(revoked.isRevoked({ subjectDigest: digest('c2'), tokenDigest: digest('t2'), issuedAt: at })).toBe(false);
    expect(revoked.isRevoked({ subjectDigest: digest('c2'), tokenDigest: undefined, issuedAt: at })).toBe(false);
  });

  it('keeps the later not_after and expiry when an entry comes again, and forgets expired entries', () => {
    const revoked = set();
    revoked.merge([{ type: 'sub', id: digest('c1'), notAfter: at - 100, expiresAt: at + 10 }]);
    revoked.merge([{ type: 'sub', id: digest('c1'), notAfter: at - 200, expiresAt: at + 5 }]);
    expect(revoked.isRevoked({ subjectDigest: digest('c1'), tokenDigest: undefined, issuedAt: at - 150 })).toBe(true);
    revoked.merge([{ type: 'jti', id: digest('old'), expiresAt: at - 1 }]);
    expect(revoked.size).toBe(1);
    expect(revoked.isRevoked({ subjectDigest: digest('x'), tokenDigest: digest('old'), issuedAt: 0 })).toBe(false);
  });
});

/** A message source standing in for a NATS connection: what was subscribed, and a way to deliver. */
function fakeMessages(): RevocationMessages & { subjects: string[]; deliver(document: unknown): void; unsubscribed: number } {
  const callbacks: Array<(error: Error | null, message: { data: Uint8Array }) => void> = [];
  const source = {
    subjects: [] as string[],
    unsubscribed: 0,
    subscribe(subject: string, options: { callback: (error: Error | null, message: { data: Uint8Array }) => void }) {
      source.subjects.push(subject);
      callbacks.push(options.callback);
      return { unsubscribe: () => void (source.unsubscribed += 1) };
    },
    deliver(document: unknown) {
      for (const callback of callbacks) callback(null, { data: Buffer.from(JSON.stringify(document)) });
    },
  };
  return source;
}

describe('RevocationList and the TokenVerifier', () => {
  const authority = new TestAuthority();
  beforeAll(async () => {
    await authority.start();
  });
  afterAll(() => authority.stop());
  afterEach(() => {
    authority.revocations = [];
  });

  const revocationsUrl = () => `${authority.url}/oauth/revocations`;
  async function rejection(verifier: TokenVerifier, token: string): Promise<HttpProblem> {
    try {
      await verifier.authenticate(`Bearer ${token}`);
    } catch (error) {
      if (error instanceof HttpProblem) return error;
      throw error;
    }
    throw new Error('token was accepted');
  }
  // Tokens of our own key, so a test can choose `jti` and `iat`.
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = { key: async (kid: string) => (kid === 'k1' ? pair.publicKey : undefined) };
  const tokenOf = (sub: string, jti = randomUUID(), iat = now()) =>
    jwt.sign({ jti, iat, scope: 'policy:read', solutions: ['acme'] }, pair.privateKey, {
      algorithm: 'ES256', keyid: 'k1', issuer: 'custos-auth', audience: 'custos', subject: sub, expiresIn: 600,
    });

  it('refuses a token revoked before start (loaded from auth), also once it is cached', async () => {
    const revokedJti = randomUUID();
    const token = tokenOf('c-load');
    const other = tokenOf('c-load');
    const list = new RevocationList({ url: revocationsUrl() });
    const verifier = new TokenVerifier({ keys, revocations: list });
    expect((await verifier.authenticate(`Bearer ${token}`)).clientId).toBe('c-load');

    // Now revoke the token already cached, by jti, as a message would.
    const jti = (jwt.decode(token) as { jti: string }).jti;
    list.receive(Buffer.from(JSON.stringify(toRevocationDocument([{ type: 'jti', id: digest(jti), expiresAt: now() + 600 }]))));
    expect(await rejection(verifier, token)).toMatchObject({ status: 401, detail: expect.stringContaining('revoked') });
    expect((await verifier.authenticate(`Bearer ${other}`)).clientId).toBe('c-load');

    authority.revocations = toRevocationDocument([{ type: 'jti', id: digest(revokedJti), expiresAt: now() + 600 }]).revocations;
    const later = new TokenVerifier({ keys, revocations: new RevocationList({ url: revocationsUrl() }) });
    expect(await rejection(later, tokenOf('c-x', revokedJti))).toMatchObject({ status: 401 });
    expect((await later.authenticate(`Bearer ${tokenOf('c-x')}`)).clientId).toBe('c-x');
  });

  it('answers a verified token from its cache without verifying it again, and refuses it there as soon as it is revoked', async () => {
    let lookups = 0;
    const counted = {
      key: async (kid: string) => {
        lookups += 1;
        return keys.key(kid);
      },
    };
    const list = new RevocationList({ url: revocationsUrl() });
    const verifier = new TokenVerifier({ keys: counted, revocations: list });
    const token = tokenOf('c-cached');
    const header = `Bearer ${token}`;
    // Never verified: only authenticate may answer it (a signature check).
    expect(verifier.cached(header)).toBeUndefined();
    expect((await verifier.authenticate(header)).clientId).toBe('c-cached');
    expect(verifier.cached(header)?.clientId).toBe('c-cached');
    expect((await verifier.authenticate(header)).clientId).toBe('c-cached');
    expect(lookups).toBe(1);

    // Revoked by a message: the very next check refuses it, synchronously, cache or not.
    const jti = (jwt.decode(token) as { jti: string }).jti;
    list.receive(Buffer.from(JSON.stringify(toRevocationDocument([{ type: 'jti', id: digest(jti), expiresAt: now() + 600 }]))));
    expect(() => verifier.cached(header)).toThrow(expect.objectContaining({ status: 401, detail: expect.stringContaining('revoked') }));
    expect(await rejection(verifier, token)).toMatchObject({ status: 401 });
    // Another token of the same client is not affected.
    expect((await verifier.authenticate(`Bearer ${tokenOf('c-cached')}`)).clientId).toBe('c-cached');
  });

  it('a client revocation refuses its tokens issued until then, and not those issued after', async () => {
    const list = new RevocationList({ url: revocationsUrl() });
    const verifier = new TokenVerifier({ keys, revocations: list });
    const revokedAt = now();
    const before = tokenOf('c-sub', randomUUID(), revokedAt - 5);
    const atTheSecond = tokenOf('c-sub', randomUUID(), revokedAt);
    const after = tokenOf('c-sub', randomUUID(), revokedAt + 1);
    await list.ready();
    list.receive(Buffer.from(JSON.stringify(toRevocationDocument([{ type: 'sub', id: digest('c-sub'), notAfter: revokedAt, expiresAt: revokedAt + 3600 }]))));
    expect(await rejection(verifier, before)).toMatchObject({ status: 401 });
    expect(await rejection(verifier, atTheSecond)).toMatchObject({ status: 401 });
    expect((await verifier.authenticate(`Bearer ${after}`)).clientId).toBe('c-sub');
    expect((await verifier.authenticate(`Bearer ${tokenOf('c-other', randomUUID(), revokedAt - 5)}`)).clientId).toBe('c-other');
  });

  it('answers 503 while the list was never loaded (auth down), and recovers once it is', async () => {
    const list = new RevocationList({ url: 'http://127.0.0.1:1/oauth/revocations', retryIntervalMs: 60_000 });
    const verifier = new TokenVerifier({ keys, revocations: list });
    expect(await rejection(verifier, tokenOf('c-down'))).toMatchObject({ status: 503 });
    const working = new TokenVerifier({ keys, revocations: new RevocationList({ url: revocationsUrl() }) });
    expect((await working.authenticate(`Bearer ${tokenOf('c-down')}`)).clientId).toBe('c-down');
  });

  it('follows the revocation subject of its prefix once per connection, and polls for what it missed', async () => {
    const list = new RevocationList({ url: revocationsUrl(), pollIntervalMs: 100 }).start();
    const messages = fakeMessages();
    list.follow(messages, 'stack-7');
    list.follow(messages, 'stack-7');
    expect(messages.subjects).toEqual([revocationSubject('stack-7')]);
    expect(revocationSubject('stack-7')).toBe('stack-7.auth.revocations');
    await list.ready();

    messages.deliver(toRevocationDocument([{ type: 'jti', id: digest('by-message'), expiresAt: now() + 60 }]));
    expect(list.isRevoked({ subjectDigest: digest('c'), tokenDigest: digest('by-message'), issuedAt: now() })).toBe(true);
    messages.deliver({ revocations: [{ type: 'nonsense' }] });
    expect(list.size).toBe(1);

    // Published while no message arrived: the poll brings it.
    authority.revocations = toRevocationDocument([{ type: 'jti', id: digest('by-poll'), expiresAt: now() + 60 }]).revocations;
    await waitFor(async () => list.isRevoked({ subjectDigest: digest('c'), tokenDigest: digest('by-poll'), issuedAt: now() }), {
      timeoutMs: 5000,
      what: 'the poll to bring the revocation',
    });
    list.stop();
    expect(messages.unsubscribed).toBe(1);
  });
});
