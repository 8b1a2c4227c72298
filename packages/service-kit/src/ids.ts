import { randomBytes } from 'node:crypto';

/**
 * UUIDv7 (RFC 9562 §5.7): 48-bit millisecond time, version, 74 random bits. Time-ordered ids
 * keep decision logs sortable; a counter in the random part keeps ids from one process ordered
 * within a millisecond.
 */
let lastMs = 0;
let sequence = 0;

// Random bytes are drawn in bulk: one randomBytes call per id costs more than the rest of the id.
const POOL_IDS = 256;
let pool = randomBytes(16 * POOL_IDS);
let poolOffset = 0;

function nextRandom16(): Buffer {
  if (poolOffset >= pool.length) {
    pool = randomBytes(16 * POOL_IDS);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

export function uuidv7(now: number = Date.now()): string {
  const bytes = nextRandom16();
  if (now === lastMs) {
    sequence = (sequence + 1) & 0xfff;
  } else {
    lastMs = now;
    sequence = bytes.readUInt16BE(6) & 0x7ff;
  }
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes.writeUInt8(0x80 | (bytes.readUInt8(8) & 0x3f), 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
