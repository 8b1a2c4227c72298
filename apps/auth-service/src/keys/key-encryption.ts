import { createPrivateKey, type KeyObject } from 'node:crypto';
import { ConfigError, readOptional, type Env } from '@custos/service-kit';
import { isSealed, open, OPERATOR_KEY_BYTES, operatorKey, seal, sealedWith, type OperatorKey } from './envelope';

export const KEY_VARIABLE = 'AUTH_KEY_ENCRYPTION_KEY';
export const PREVIOUS_KEYS_VARIABLE = 'AUTH_KEY_ENCRYPTION_KEY_PREVIOUS';

/**
 * The operator keys auth holds: `current` seals every signing key (new ones, and old ones at start);
 * `previous` only opens keys sealed before the operator key was rotated. No current key: keys are
 * stored in the clear (development only).
 */
export interface KeyEncryption {
  current: OperatorKey | undefined;
  previous: OperatorKey[];
}

export const NO_ENCRYPTION: KeyEncryption = { current: undefined, previous: [] };

function parseOperatorKey(variable: string, text: string): OperatorKey {
  const trimmed = text.trim();
  const decoded = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : undefined;
  if (decoded?.length !== OPERATOR_KEY_BYTES) {
    // Never the value itself: it is a secret, even when malformed.
    throw new ConfigError(`${variable} must hold ${OPERATOR_KEY_BYTES} random bytes in base64, e.g. from \`openssl rand -base64 32\``);
  }
  return operatorKey(decoded);
}

/**
 * AUTH_KEY_ENCRYPTION_KEY (the current operator key) and AUTH_KEY_ENCRYPTION_KEY_PREVIOUS (comma-separated
 * keys it replaced). With NODE_ENV=production, the current key is required.
 */
export function readKeyEncryption(env: Env): KeyEncryption {
  const currentText = readOptional(env, KEY_VARIABLE);
  const previousText = readOptional(env, PREVIOUS_KEYS_VARIABLE);
  if (currentText === undefined) {
    if (previousText !== undefined) throw new ConfigError(`${PREVIOUS_KEYS_VARIABLE} is set without ${KEY_VARIABLE}: set the key that replaces them`);
    if (env.NODE_ENV === 'production') {
      throw new ConfigError(`set ${KEY_VARIABLE} (32 random bytes in base64, e.g. from \`openssl rand -base64 32\`): with NODE_ENV=production auth-service refuses to keep signing keys unencrypted`);
    }
    return NO_ENCRYPTION;
  }
  const current = parseOperatorKey(KEY_VARIABLE, currentText);
  const previous = (previousText ?? '')
    .split(',')
    .filter((item) => item.trim() !== '')
    .map((item) => parseOperatorKey(PREVIOUS_KEYS_VARIABLE, item))
    .filter((key) => key.fingerprint !== current.fingerprint);
  return { current, previous };
}

/** The operator key named by `fingerprint`, if auth holds it. */
export function operatorKeyOf(encryption: KeyEncryption, fingerprint: string): OperatorKey | undefined {
  return [encryption.current, ...encryption.previous].find((key) => key?.fingerprint === fingerprint);
}

/** The form a new private key is stored in: sealed under the current operator key, or PEM without one. */
export function storedForm(kid: string, privatePem: string, encryption: KeyEncryption): string {
  return encryption.current ? seal(kid, privatePem, encryption.current) : privatePem;
}

/** The private key of a stored row, or undefined when it is sealed under an operator key auth does not hold. */
export function privateKeyOf(kid: string, stored: string, encryption: KeyEncryption): KeyObject | undefined {
  if (!isSealed(stored)) return createPrivateKey({ key: stored, format: 'pem' });
  const operator = operatorKeyOf(encryption, sealedWith(stored));
  return operator && createPrivateKey({ key: open(kid, stored, operator), format: 'pem' });
}
