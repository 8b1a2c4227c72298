import { createHash, createPublicKey, generateKeyPair, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Pool, PoolClient } from 'pg';
import { TOKEN_ALGORITHM } from '@custos/contracts';
import { SingleFlight, withTransaction, type KeySource, type Logger } from '@custos/service-kit';
import { NO_ENCRYPTION, privateKeyOf, storedForm, type KeyEncryption } from './key-encryption';

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
  /** Undefined when the key is sealed under an operator key this instance does not hold: published, never used to sign. */
  privateKey: KeyObject | undefined;
  jwk: PublicJwk;
  createdAt: Date;
  activatesAt: Date;
  retiresAt: Date | null;
}

interface KeyRow {
  kid: string;
  algorithm: string;
  private_key: string;
  public_jwk: JsonWebKey;
  created_at: Date;
  activates_at: Date;
  retires_at: Date | null;
}

export interface KeyStoreOptions {
  logger: Logger;
  /** Operator keys that seal private keys at rest (none: stored in the clear). */
  encryption?: KeyEncryption;
  /** An unknown kid triggers a reload from the database at most this often. */
  minReloadIntervalMs?: number;
  /** The JWKS is reloaded from the database when the copy in memory is older than this. */
  maxAgeMs?: number;
}

const isUsable = (key: LoadedKey): key is LoadedKey & { privateKey: KeyObject } => key.privateKey !== undefined;

/** Serialises key creation and rotation across every auth instance and the CLI (pg_advisory_xact_lock). */
export const KEY_LOCK = "hashtext('custos.auth.signing_keys')";

/** One transaction that holds the key lock from its first statement on. */
export function inKeyLock<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(${KEY_LOCK})`);
    return work(client);
  });
}

/** RFC 7638 thumbprint of an EC public key: a kid that names the key itself. */
export function thumbprint(jwk: JsonWebKey): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

export async function generateEs256(): Promise<{ kid: string; privatePem: string; jwk: JsonWebKey }> {
  const { publicKey, privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return { kid: thumbprint(jwk), privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), jwk };
}

/**
 * The signing keys of schema `auth`. Keys live in `auth.signing_keys` so they survive restarts and
 * are shared by every instance. Every key whose `retires_at` is unset or still ahead is published in
 * the JWKS and accepted for verification. Of those, the one activated last (`activates_at` passed)
 * signs. Rotation (keys/rotation.ts) adds a key that activates later, so verifiers can learn it
 * first, and retires the old one only after every token it may still sign has expired.
 */
export class KeyStore implements KeySource {
  private published = new Map<string, LoadedKey>();
  private loadedAt = 0;
  private readonly reloads = new SingleFlight(() => this.load());
  private readonly logger: Logger;
  private readonly encryption: KeyEncryption;
  /** Kids already reported as unopenable, so a reload every few seconds does not repeat it. */
  private readonly reported = new Set<string>();
  private readonly minReloadIntervalMs: number;
  private readonly maxAgeMs: number;

  private constructor(
    private readonly pool: Pool,
    options: KeyStoreOptions,
  ) {
    this.logger = options.logger;
    this.encryption = options.encryption ?? NO_ENCRYPTION;
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
   * Creates a signing key when no key that is not retiring exists (first start, or every key was
   * retired by hand). Instances that start together take turns under an advisory lock, so exactly
   * one key is created. A key that is still waiting to activate counts: the retiring one signs until then.
   */
  async ensureActiveKey(): Promise<string> {
    return inKeyLock(this.pool, async (client) => {
      const active = await client.query<{ kid: string }>(
        'SELECT kid FROM auth.signing_keys WHERE retires_at IS NULL AND algorithm = $1 ORDER BY created_at DESC, kid LIMIT 1',
        [TOKEN_ALGORITHM],
      );
      let kid = active.rows[0]?.kid;
      if (kid === undefined) {
        const key = await generateEs256();
        await client.query(
          'INSERT INTO auth.signing_keys (kid, algorithm, private_key, public_jwk) VALUES ($1, $2, $3, $4)',
          [key.kid, TOKEN_ALGORITHM, storedForm(key.kid, key.privatePem, this.encryption), JSON.stringify(key.jwk)],
        );
        kid = key.kid;
        this.logger.info({ kid }, 'signing key created');
      }
      return kid;
    });
  }

  /** Reads the keys again (one reload at a time). */
  reload(): Promise<void> {
    return this.reloads.run();
  }

  private async load(): Promise<void> {
    const result = await this.pool.query<KeyRow>(
      `SELECT kid, algorithm, private_key, public_jwk, created_at, activates_at, retires_at
         FROM auth.signing_keys
        WHERE algorithm = $1 AND (retires_at IS NULL OR retires_at > now())
        ORDER BY activates_at DESC, created_at DESC, kid`,
      [TOKEN_ALGORITHM],
    );
    const published = new Map<string, LoadedKey>();
    for (const row of result.rows) {
      const publicKey = createPublicKey({ key: row.public_jwk, format: 'jwk' });
      const jwk: PublicJwk = { ...(publicKey.export({ format: 'jwk' }) as JsonWebKey), kid: row.kid, alg: row.algorithm, use: 'sig' };
      published.set(row.kid, {
        kid: row.kid,
        algorithm: row.algorithm,
        publicKey,
        privateKey: this.openPrivateKey(row, this.published.get(row.kid)?.privateKey),
        jwk,
        createdAt: row.created_at,
        activatesAt: row.activates_at,
        retiresAt: row.retires_at,
      });
    }
    // Keep the keys we have rather than none if every key vanished meanwhile (deleted by hand).
    if (published.size > 0 || this.published.size === 0) this.published = published;
    this.loadedAt = Date.now();
  }

  /**
   * A key another instance sealed under an operator key this one lacks (the operator key was rotated
   * while it ran, and the key is new) is published but not used to sign: the keys it can open keep signing.
   */
  private openPrivateKey(row: KeyRow, opened: KeyObject | undefined): KeyObject | undefined {
    let key: KeyObject | undefined;
    let failure: unknown;
    try {
      key = privateKeyOf(row.kid, row.private_key, this.encryption);
    } catch (error) {
      failure = error;
    }
    // Re-wrapped under an operator key this instance lacks (another instance started with a new one): the
    // key itself did not change, so the copy opened before keeps signing.
    if (!key && opened) return opened;
    if (!key && !this.reported.has(row.kid)) {
      this.reported.add(row.kid);
      if (failure === undefined) this.logger.warn({ kid: row.kid }, 'signing key is sealed under an operator key this instance does not hold; not signing with it');
      else this.logger.error({ kid: row.kid, err: failure }, 'signing key cannot be opened; not signing with it');
    }
    return key;
  }

  /**
   * The key that signs new tokens: of the published keys, the one activated last. Chosen at each
   * call, so a key waiting to activate takes over at its time on every instance that has loaded it.
   * Throws when none is usable (readiness reports that first).
   */
  signingKey(now: number = Date.now()): SigningKey {
    let chosen: (LoadedKey & { privateKey: KeyObject }) | undefined;
    for (const key of this.published.values()) {
      if (!isUsable(key)) continue;
      if (key.activatesAt.getTime() > now) continue;
      if (key.retiresAt !== null && key.retiresAt.getTime() <= now) continue;
      if (!chosen || key.activatesAt > chosen.activatesAt) chosen = key;
    }
    if (!chosen) throw new Error('no signing key is loaded');
    return { kid: chosen.kid, algorithm: chosen.algorithm, privateKey: chosen.privateKey };
  }

  /**
   * signingKey() after reloading the keys when the copy in memory is older than `maxAgeMs`, so a
   * rotation made by another instance or the CLI reaches this one within that time. A failed
   * reload signs with the keys in memory.
   */
  async currentSigningKey(): Promise<SigningKey> {
    if (Date.now() - this.loadedAt >= this.maxAgeMs) {
      try {
        await this.reload();
      } catch (error) {
        this.logger.warn({ err: error }, 'reloading signing keys failed; signing with the keys in memory');
      }
    }
    return this.signingKey();
  }

  hasSigningKey(): boolean {
    try {
      this.signingKey();
      return true;
    } catch {
      return false;
    }
  }

  /** KeySource for TokenVerifier: the public key of `kid`, reloading once (rate-limited) when it is unknown. */
  async key(kid: string): Promise<KeyObject | undefined> {
    if (Date.now() - this.loadedAt >= this.maxAgeMs) {
      // A key retired by hand (or by another instance) stops verifying here within maxAgeMs.
      await this.reload().catch((error: unknown) => this.logger.warn({ err: error }, 'reloading signing keys failed'));
    }
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
