import { randomBytes } from 'node:crypto';

/**
 * UUIDv7 (RFC 9562 §5.7): 48-bit millisecond time, version, 74 random bits. Time-ordered ids
 * keep decision logs sortable; a counter in the random part keeps ids from one process ordered
 * within a millisecond.
 */
let lastMs = 0;
let sequence = 0;

// Random bytes are drawn in bulk, and turned into hex text in bulk: one randomBytes call or one hex conversion per id
// costs more than the rest of the id.
const POOL_IDS = 256;
let pool = randomBytes(16 * POOL_IDS);
let poolHex = pool.toString('hex');
let poolOffset = 0;
/** The id's first 48 bits as text (`xxxxxxxx-xxxx-`), for the millisecond `lastMs`. */
let timePrefix = '';

/** The two hex digits of every byte value. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

export function uuidv7(now: number = Date.now()): string {
  if (poolOffset >= pool.length) {
    pool = randomBytes(16 * POOL_IDS);
    poolHex = pool.toString('hex');
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += 16;
  if (now === lastMs) {
    sequence = (sequence + 1) & 0xfff;
  } else {
    lastMs = now;
    sequence = (((pool[at + 6] ?? 0) << 8) | (pool[at + 7] ?? 0)) & 0x7ff;
    const time = now.toString(16).padStart(12, '0').slice(-12);
    timePrefix = `${time.slice(0, 8)}-${time.slice(8)}-`;
  }
  // Version 7 and the sequence, the RFC variant in the top bits of byte 8, then 8 random bytes' digits as they are.
  const variant = HEX[0x80 | ((pool[at + 8] ?? 0) & 0x3f)] ?? '80';
  const hex = at * 2;
  return `${timePrefix}${HEX[0x70 | (sequence >> 8)] ?? '70'}${HEX[sequence & 0xff] ?? '00'}-${variant}${poolHex.slice(hex + 18, hex + 20)}-${poolHex.slice(hex + 20, hex + 32)}`;
}
