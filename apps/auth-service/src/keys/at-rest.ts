import type { Pool } from 'pg';
import { ConfigError, type Logger } from '@custos/service-kit';
import { isSealed, rewrap, seal, sealedWith } from './envelope';
import { inKeyLock } from './key-store';
import { KEY_VARIABLE, operatorKeyOf, PREVIOUS_KEYS_VARIABLE, type KeyEncryption } from './key-encryption';

export interface AtRestOutcome {
  /** Keys found in the clear and sealed now. */
  sealed: number;
  /** Keys moved from a previous operator key to the current one. */
  rewrapped: number;
  /** Keys left in the clear (no operator key configured). */
  clear: number;
}

/**
 * Brings every stored signing key under the current operator key, at start (auth and the clients CLI):
 * keys in the clear are sealed, keys sealed under a previous operator key are re-wrapped. Refuses
 * (ConfigError) when a key is sealed under an operator key that is not configured: auth could not sign
 * with it, and starting would hide that until the key is needed. Runs under the key lock, so instances
 * starting together do this once.
 */
export async function secureKeysAtRest(pool: Pool, encryption: KeyEncryption, logger: Logger): Promise<AtRestOutcome> {
  const outcome: AtRestOutcome = { sealed: 0, rewrapped: 0, clear: 0 };
  await inKeyLock(pool, async (client) => {
    const rows = await client.query<{ kid: string; private_key: string }>('SELECT kid, private_key FROM auth.signing_keys ORDER BY kid');
    const missing = new Set<string>();
    for (const row of rows.rows) {
      if (!isSealed(row.private_key)) {
        if (!encryption.current) {
          outcome.clear++;
          continue;
        }
        await client.query('UPDATE auth.signing_keys SET private_key = $2 WHERE kid = $1', [row.kid, seal(row.kid, row.private_key, encryption.current)]);
        outcome.sealed++;
        continue;
      }
      const fingerprint = sealedWith(row.private_key);
      if (fingerprint === encryption.current?.fingerprint) continue;
      const from = operatorKeyOf(encryption, fingerprint);
      if (!from || !encryption.current) {
        missing.add(fingerprint);
        continue;
      }
      await client.query('UPDATE auth.signing_keys SET private_key = $2 WHERE kid = $1', [
        row.kid,
        rewrap(row.kid, row.private_key, from, encryption.current),
      ]);
      outcome.rewrapped++;
    }
    if (missing.size > 0) {
      const names = [...missing].map((fingerprint) => `\`${fingerprint}\``).join(', ');
      throw new ConfigError(
        `signing keys are sealed with the operator key ${names}, which neither ${KEY_VARIABLE} nor ${PREVIOUS_KEYS_VARIABLE} holds: set it there to start`,
      );
    }
  });
  if (outcome.sealed > 0) logger.info({ keys: outcome.sealed, operatorKey: encryption.current?.fingerprint }, 'signing keys stored in the clear are now encrypted');
  if (outcome.rewrapped > 0) logger.info({ keys: outcome.rewrapped, operatorKey: encryption.current?.fingerprint }, 'signing keys re-wrapped under the current operator key');
  if (!encryption.current) {
    logger.warn(`signing keys are stored unencrypted: set ${KEY_VARIABLE} (32 random bytes in base64) to encrypt them at rest; production mode refuses to start without it`);
  }
  return outcome;
}
