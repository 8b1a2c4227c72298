import { createServer, type Server } from 'node:http';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { ALL_SCOPES, TOKEN_ALGORITHM, TOKEN_AUDIENCE, TOKEN_ISSUER } from '@custos/contracts';

export interface MintOptions {
  sub?: string;
  scopes?: readonly string[];
  solutions?: readonly string[];
  expiresInSeconds?: number;
  notBeforeSeconds?: number;
  issuer?: string;
  audience?: string;
  kid?: string;
}

/**
 * A stand-in for the auth service in tests of pap and pdp: a real ES256 key pair whose JWKS
 * is served over real HTTP, and tokens minted with any claims a test needs (including bad ones).
 */
export class TestAuthority {
  readonly kid = `test-${randomUUID()}`;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private server: Server | undefined;
  jwksUrl = '';
  /** How many times the JWKS was fetched (to test caching). */
  jwksFetches = 0;
  /** What `/oauth/revocations` serves, in its wire form (auth's revocation list); empty unless a test adds to it. */
  revocations: unknown[] = [];

  constructor() {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      if (req.url === '/.well-known/jwks.json') {
        this.jwksFetches++;
        const jwk = { ...this.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: TOKEN_ALGORITHM, use: 'sig' };
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ keys: [jwk] }));
        return;
      }
      if (req.url === '/oauth/revocations') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ revocations: this.revocations }));
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    this.jwksUrl = `http://127.0.0.1:${port}/.well-known/jwks.json`;
    return this;
  }

  /** Base URL to use as AUTH_URL. */
  get url(): string {
    return this.jwksUrl.replace('/.well-known/jwks.json', '');
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  mint(options: MintOptions = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      scope: (options.scopes ?? ALL_SCOPES).join(' '),
      solutions: options.solutions ?? ['*'],
      jti: randomUUID(),
      nbf: now + (options.notBeforeSeconds ?? 0),
    };
    return jwt.sign(payload, this.privateKey, {
      algorithm: TOKEN_ALGORITHM,
      keyid: options.kid ?? this.kid,
      issuer: options.issuer ?? TOKEN_ISSUER,
      audience: options.audience ?? TOKEN_AUDIENCE,
      subject: options.sub ?? 'test-client',
      expiresIn: options.expiresInSeconds ?? 600,
    });
  }

  /** The public key in PEM, for attacks that misuse it (HS256 signed with the public key). */
  publicKeyPem(): string {
    return this.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  }
}
