import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost of new hashes: N=2^14, r=8, p=1 (16 MiB, tens of milliseconds), a 32-byte key. */
export const SCRYPT_PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Bounds on parameters read back from storage, so a damaged row cannot make us allocate gigabytes. */
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** A new client secret: 32 random bytes, base64url (43 characters, 256 bits of entropy). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

function derive(secret: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + (1 << 20) };
  // Asynchronous: runs on the libuv pool, so the event loop keeps serving other requests.
  return new Promise((resolve, reject) =>
    scrypt(secret.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`: the only form a secret is ever stored in. */
export async function hashSecret(secret: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(secret, salt, params, KEY_LENGTH);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^\d{1,8}$/.test(part) ? Number(part) : NaN)) as [number, number, number];
  const validN = N >= 2 && N <= MAX_N && (N & (N - 1)) === 0;
  if (!validN || !(r >= 1 && r <= MAX_R) || !(p >= 1 && p <= MAX_P)) return undefined;
  const [, , , , saltText = '', hashText = ''] = parts;
  if (!BASE64.test(saltText) || !BASE64.test(hashText)) return undefined;
  const salt = Buffer.from(saltText, 'base64');
  const hash = Buffer.from(hashText, 'base64');
  if (salt.length < 8 || hash.length < 16 || hash.length > 64) return undefined;
  return { params: { N, r, p }, salt, hash };
}

/** Whether `secret` matches the stored hash, compared in constant time; false for a malformed hash. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const candidate = await derive(secret, parsed.salt, parsed.params, parsed.hash.length);
  return timingSafeEqual(candidate, parsed.hash);
}

/**
 * A well-formed hash with the current parameters that no secret is known to match. Checking a
 * secret against it costs what checking a real client's secret costs, so an unknown client id
 * answers as slowly as a wrong secret does.
 */
export const DUMMY_HASH = [
  'scrypt',
  SCRYPT_PARAMS.N,
  SCRYPT_PARAMS.r,
  SCRYPT_PARAMS.p,
  Buffer.alloc(SALT_LENGTH, 0x5a).toString('base64'),
  Buffer.alloc(KEY_LENGTH, 0).toString('base64'),
].join('$');

