import { DUMMY_HASH, generateSecret, hashSecret, parseHash, SCRYPT_PARAMS, verifySecret } from '../src/hashing/secrets';

describe('client secrets', () => {
  it('generates 32 random bytes as base64url', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    }
  });

  it('stores secrets as scrypt$N$r$p$salt$hash with a fresh salt each time', async () => {
    const first = await hashSecret('s3cret');
    const second = await hashSecret('s3cret');
    const pattern = /^scrypt\$16384\$8\$1\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;
    expect(first).toMatch(pattern);
    expect(first).not.toBe(second);
    expect(first).not.toContain('s3cret');
    const [, salt, hash] = pattern.exec(first)!;
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(hash!, 'base64')).toHaveLength(32);
    expect(parseHash(first)?.params).toEqual(SCRYPT_PARAMS);
  });

  it('verifies the right secret and refuses others', async () => {
    const stored = await hashSecret('correct horse');
    await expect(verifySecret('correct horse', stored)).resolves.toBe(true);
    await expect(verifySecret('correct hors', stored)).resolves.toBe(false);
    await expect(verifySecret('correct horse ', stored)).resolves.toBe(false);
    await expect(verifySecret('', stored)).resolves.toBe(false);
  });

  it('verifies hashes made with other parameters (they are read from the stored form)', async () => {
    const stored = await hashSecret('cheap', { N: 1024, r: 4, p: 2 });
    expect(stored.startsWith('scrypt$1024$4$2$')).toBe(true);
    await expect(verifySecret('cheap', stored)).resolves.toBe(true);
    await expect(verifySecret('dear', stored)).resolves.toBe(false);
  });

  it('treats malformed or hostile stored hashes as no match', async () => {
    const good = await hashSecret('x');
    const parts = good.split('$');
    const variants = [
      '',
      'plain-text-secret',
      parts.slice(0, 5).join('$'),
      ['bcrypt', ...parts.slice(1)].join('$'),
      ['scrypt', '1000', ...parts.slice(2)].join('$'), // N not a power of two
      ['scrypt', String(1 << 24), ...parts.slice(2)].join('$'), // N far too large
      ['scrypt', parts[1], '0', ...parts.slice(3)].join('$'),
      [...parts.slice(0, 4), 'not base64!', parts[5]].join('$'),
      [...parts.slice(0, 5), 'AA=='].join('$'), // hash too short
    ];
    for (const stored of variants) {
      expect(parseHash(stored)).toBeUndefined();
      await expect(verifySecret('x', stored)).resolves.toBe(false);
    }
  });

  it('has a dummy hash that parses with the current parameters and matches nothing', async () => {
    expect(parseHash(DUMMY_HASH)?.params).toEqual(SCRYPT_PARAMS);
    await expect(verifySecret('', DUMMY_HASH)).resolves.toBe(false);
    await expect(verifySecret('anything', DUMMY_HASH)).resolves.toBe(false);
  });

  it('does not block the event loop while hashing', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await Promise.all([hashSecret('a'), hashSecret('b'), hashSecret('c'), hashSecret('d')]);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });
});
