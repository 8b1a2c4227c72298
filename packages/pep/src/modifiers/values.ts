import { createHash } from 'node:crypto';
import { canonicalJson, jsonCopy } from '../json-value';
import { REMOVE, type ModifierMethod } from './method';

/** `delete`: removes the selected member or element; at `$` the whole parameter leaves the event. */
export const deleteMethod: ModifierMethod = {
  parameters: [],
  prepare: () => () => REMOVE,
};

/** `replace`: puts `replaceWith` (any JSON value, null too) in place of each selected value. */
export const replaceMethod: ModifierMethod = {
  parameters: ['replaceWith'],
  prepare(args) {
    const { present, value } = args.raw('replaceWith');
    if (!present) throw new TypeError('`replace` needs parameter `replaceWith`');
    // Each place gets its own copy, so two places never share one object.
    return () => jsonCopy(value);
  },
};

/** Accepted `algorithm` names (case and dashes ignored) and what node:crypto calls them. */
export const HASH_ALGORITHMS: ReadonlyMap<string, string> = new Map([
  ['SHA256', 'sha256'],
  ['SHA384', 'sha384'],
  ['SHA512', 'sha512'],
  ['SHA3256', 'sha3-256'],
  ['SHA3512', 'sha3-512'],
  ['SHA1', 'sha1'],
  ['MD5', 'md5'],
]);

/**
 * `hash`: the lower-case hex digest of the value: a string's UTF-8 bytes, any other value's canonical JSON
 * (keys sorted), so equal values hash alike. `algorithm` defaults to SHA-256.
 */
export const hashMethod: ModifierMethod = {
  parameters: ['algorithm'],
  prepare(args) {
    const name = args.string('algorithm', 'SHA-256');
    const algorithm = HASH_ALGORITHMS.get(name.toUpperCase().replace(/[-_]/g, ''));
    if (algorithm === undefined) {
      throw new TypeError(`\`hash\` does not know algorithm \`${name}\` (use SHA-256, SHA-384, SHA-512, SHA3-256, SHA3-512, SHA-1 or MD5)`);
    }
    return (value) => createHash(algorithm).update(typeof value === 'string' ? value : canonicalJson(value), 'utf8').digest('hex');
  },
};
