import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of signing keys at rest. Each signing key is encrypted with its own random data
 * key (AES-256-GCM); the data key is encrypted ("wrapped") with the operator's key. Both layers carry
 * the key id as additional data, so a sealed key copied onto another row does not open. Rotating the
 * operator key only re-wraps the 32-byte data keys.
 *
 * Stored form: `sealed.v1.<operator key fingerprint>.<wrapped data key>.<sealed key>`, base64url
 * parts, each `iv (12) | ciphertext | tag (16)`.
 */

const PREFIX = 'sealed.v1.';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const OPERATOR_KEY_BYTES = 32;

/** An operator key (key-encryption key) and the fingerprint that names it without revealing it. */
export interface OperatorKey {
  fingerprint: string;
  secret: Buffer;
}

export class SealError extends Error {}

export function operatorKey(secret: Buffer): OperatorKey {
  if (secret.length !== OPERATOR_KEY_BYTES) throw new SealError(`an operator key has ${OPERATOR_KEY_BYTES} bytes, not ${secret.length}`);
  const fingerprint = createHash('sha256').update('custos operator key fingerprint\0').update(secret).digest().subarray(0, 12).toString('base64url');
  return { fingerprint, secret };
}

const keyData = (kid: string) => Buffer.from(`custos.signing-key.v1\0${kid}`, 'utf8');
const dataKeyData = (kid: string, fingerprint: string) => Buffer.from(`custos.data-key.v1\0${kid}\0${fingerprint}`, 'utf8');

function encrypt(key: Buffer, plaintext: Buffer, additionalData: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

function decrypt(key: Buffer, sealed: string, additionalData: Buffer): Buffer {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SealError('the sealed text is truncated');
  const decipher = createDecipheriv(ALGORITHM, key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData);
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealError('the sealed text does not open with this key (wrong key, wrong key id or altered text)');
  }
}

interface Envelope {
  fingerprint: string;
  wrappedDataKey: string;
  sealedKey: string;
}

export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

function parse(stored: string): Envelope {
  const parts = stored.slice(PREFIX.length).split('.');
  const [fingerprint, wrappedDataKey, sealedKey] = parts;
  if (!isSealed(stored) || parts.length !== 3 || !fingerprint || !wrappedDataKey || !sealedKey) {
    throw new SealError('not a sealed signing key');
  }
  return { fingerprint, wrappedDataKey, sealedKey };
}

/** The fingerprint of the operator key a stored key is sealed with. */
export const sealedWith = (stored: string): string => parse(stored).fingerprint;

/** Seals the private key (PEM) of signing key `kid` under `operator`. */
export function seal(kid: string, privatePem: string, operator: OperatorKey): string {
  const dataKey = randomBytes(32);
  try {
    const sealedKey = encrypt(dataKey, Buffer.from(privatePem, 'utf8'), keyData(kid));
    const wrappedDataKey = encrypt(operator.secret, dataKey, dataKeyData(kid, operator.fingerprint));
    return `${PREFIX}${operator.fingerprint}.${wrappedDataKey}.${sealedKey}`;
  } finally {
    dataKey.fill(0);
  }
}

/** The private key (PEM) of a sealed signing key `kid`; SealError when `operator` is not its key. */
export function open(kid: string, stored: string, operator: OperatorKey): string {
  const envelope = parse(stored);
  if (envelope.fingerprint !== operator.fingerprint) throw new SealError(`sealed with operator key \`${envelope.fingerprint}\`, not \`${operator.fingerprint}\``);
  const dataKey = decrypt(operator.secret, envelope.wrappedDataKey, dataKeyData(kid, operator.fingerprint));
  try {
    return decrypt(dataKey, envelope.sealedKey, keyData(kid)).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}

/** The same sealed key with its data key wrapped under `to` instead of `from` (the key itself is not decrypted). */
export function rewrap(kid: string, stored: string, from: OperatorKey, to: OperatorKey): string {
  const envelope = parse(stored);
  if (envelope.fingerprint !== from.fingerprint) throw new SealError(`sealed with operator key \`${envelope.fingerprint}\`, not \`${from.fingerprint}\``);
  const dataKey = decrypt(from.secret, envelope.wrappedDataKey, dataKeyData(kid, from.fingerprint));
  try {
    // The sealed key must open with this data key before it is re-wrapped: a damaged row stays as it was.
    decrypt(dataKey, envelope.sealedKey, keyData(kid)).fill(0);
    const wrappedDataKey = encrypt(to.secret, dataKey, dataKeyData(kid, to.fingerprint));
    return `${PREFIX}${to.fingerprint}.${wrappedDataKey}.${envelope.sealedKey}`;
  } finally {
    dataKey.fill(0);
  }
}
