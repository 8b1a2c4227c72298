import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Pool } from 'pg';
import { TOKEN_ALGORITHM } from '@custos/contracts';
import type { KeySource, Logger } from '@custos/service-kit';

const generateKeyPairAsync = promisify(generateKeyPair);

/** A published verification key as it appears in the JWKS. */
export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: string;
  use: 'sig';
}

export interface SigningKey {
  kid: string;
  algorithm: string;
  privateKey: KeyObject;
}

interface LoadedKey {
  kid: string;
  algorithm: string;
  publicKey: KeyObject;
  jwk: PublicJwk;
  createdAt: Date;
  retiresAt: Date | null;
}

interface KeyRow {
  kid: string;
  algorithm: string;
  private_key: string;
  public_jwk: JsonWebKey;
  created_at: Date;
  retires_at: Date | null;
}

export interface KeyStoreOptions {
  logger: Logger;
  /** An unknown kid triggers a reload from the database at most this often. */
  minReloadIntervalMs?: number;
  /** The JWKS is reloaded from the database when the copy in memory is older than this. */
  maxAgeMs?: number;
}

/** Serialises key creation across every auth instance on the database (pg_advisory_xact_lock). */
const KEY_LOCK = "hashtext('custos.auth.signing_keys')";

/** RFC 7638 thumbprint of an EC public key: a kid that names the key itself. */
export function thumbprint(jwk: JsonWebKey): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

async function generateEs256(): Promise<{ kid: string; privatePem: string; jwk: JsonWebKey }> {
  const { publicKey, privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return { kid: thumbprint(jwk), privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), jwk };
}

/**
 * The signing keys of schema `auth`. Keys live in `auth.signing_keys` so they survive restarts and
 * are shared by every instance. The newest key without `retires_at` signs; every key whose
 * `retires_at` is unset or still ahead is published in the JWKS and accepted for verification
 * (rotation — issue 5 — adds a new key and sets `retires_at` of the old one to at least now + token lifetime).
 */
export class KeyStore implements KeySource {
  private published = new Map<string, LoadedKey>();
  private signing: SigningKey | undefined;
  private loadedAt = 0;
  private reloading: Promise<void> | undefined;
  private readonly logger: Logger;
  private readonly minReloadIntervalMs: number;
  private readonly maxAgeMs: number;

  private constructor(
    private readonly pool: Pool,
    options: KeyStoreOptions,
  ) {
    this.logger = options.logger;
    this.minReloadIntervalMs = options.minReloadIntervalMs ?? 5_000;
    this.maxAgeMs = options.maxAgeMs ?? 10_000;
  }

  /** Makes sure an active key exists (creating one if none does) and loads the keys. */
  static async open(pool: Pool, options: KeyStoreOptions): Promise<KeyStore> {
    const store = new KeyStore(pool, options);
    await store.ensureActiveKey();
    await store.reload();
    return store;
  }

  /**
   * Creates a signing key when no active one exists. Instances that start together take turns
   * under an advisory lock, so exactly one key is created.
   */
  async ensureActiveKey(): Promise<string> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(${KEY_LOCK})`);
      const active = await client.query<{ kid: string }>(
        'SELECT kid FROM auth.signing_keys WHERE retires_at IS NULL AND algorithm = $1 ORDER BY created_at DESC, kid LIMIT 1',
        [TOKEN_ALGORITHM],
      );
      let kid = active.rows[0]?.kid;
      if (kid === undefined) {
        const key = await generateEs256();
        await client.query(
          'INSERT INTO auth.signing_keys (kid, algorithm, private_key, public_jwk) VALUES ($1, $2, $3, $4)',
          [key.kid, TOKEN_ALGORITHM, key.privatePem, JSON.stringify(key.jwk)],
        );
        kid = key.kid;
        this.logger.info({ kid }, 'signing key created');
      }
      await client.query('COMMIT');
      return kid;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Reads the keys again (one reload at a time). */
  reload(): Promise<void> {
    this.reloading ??= this.load().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async load(): Promise<void> {
    const result = await this.pool.query<KeyRow>(
      `SELECT kid, algorithm, private_key, public_jwk, created_at, retires_at
         FROM auth.signing_keys
        WHERE algorithm = $1 AND (retires_at IS NULL OR retires_at > now())
        ORDER BY created_at DESC, kid`,
      [TOKEN_ALGORITHM],
    );
    const published = new Map<string, LoadedKey>();
    let signing: SigningKey | undefined;
    for (const row of result.rows) {
      const publicKey = createPublicKey({ key: row.public_jwk, format: 'jwk' });
      const jwk: PublicJwk = { ...(publicKey.export({ format: 'jwk' }) as JsonWebKey), kid: row.kid, alg: row.algorithm, use: 'sig' };
      published.set(row.kid, { kid: row.kid, algorithm: row.algorithm, publicKey, jwk, createdAt: row.created_at, retiresAt: row.retires_at });
      if (!signing && row.retires_at === null) {
        signing = { kid: row.kid, algorithm: row.algorithm, privateKey: createPrivateKey({ key: row.private_key, format: 'pem' }) };
      }
    }
    this.published = published;
    // Keep signing with the key we have rather than not at all if the active one vanished meanwhile.
    if (signing) this.signing = signing;
    this.loadedAt = Date.now();
  }

  /** The key that signs new tokens; throws when none is loaded (readiness reports that first). */
  signingKey(): SigningKey {
    if (!this.signing) throw new Error('no signing key is loaded');
    return this.signing;
  }

  hasSigningKey(): boolean {
    return this.signing !== undefined;
  }

  /** KeySource for TokenVerifier: the public key of `kid`, reloading once (rate-limited) when it is unknown. */
  async key(kid: string): Promise<KeyObject | undefined> {
    const known = this.published.get(kid);
    if (known && (known.retiresAt === null || known.retiresAt.getTime() > Date.now())) return known.publicKey;
    if (!known && Date.now() - this.loadedAt >= this.minReloadIntervalMs) {
      await this.reload();
      return this.published.get(kid)?.publicKey;
    }
    return undefined;
  }

  /** The JWKS document: every published key, newest first. A failed reload serves the copy in memory. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    if (Date.now() - this.loadedAt >= this.maxAgeMs) {
      try {
        await this.reload();
      } catch (error) {
        this.logger.warn({ err: error }, 'reloading signing keys failed; serving the keys in memory');
      }
    }
    const now = Date.now();
    const keys = [...this.published.values()]
      .filter((key) => key.retiresAt === null || key.retiresAt.getTime() > now)
      .map((key) => key.jwk);
    return { keys };
  }
}
