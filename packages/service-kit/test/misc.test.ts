import { ConfigError, compileValidator, type HttpProblem, locate, parseJson, readCommonConfig, readInteger, uuidv7 } from '@custos/service-kit';

describe('config', () => {
  it('has working defaults', () => {
    expect(readCommonConfig({})).toEqual({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/custos',
      natsUrl: 'nats://127.0.0.1:4222',
      natsServers: ['nats://127.0.0.1:4222'],
      natsPrefix: 'custos',
      authUrl: 'http://127.0.0.1:8082',
      logLevel: 'info',
    });
  });

  it('takes a NATS cluster as comma-separated URLs, in order', () => {
    expect(readCommonConfig({ NATS_URL: 'nats://a:4222, nats://b:4223,,nats://c:4224' }).natsServers).toEqual(['nats://a:4222', 'nats://b:4223', 'nats://c:4224']);
    expect(() => readCommonConfig({ NATS_URL: ' , ' })).toThrow(/NATS_URL names no server/);
  });

  it('rejects bad values with the variable name', () => {
    expect(() => readInteger({ PORT: 'eighty' }, 'PORT', 80)).toThrow(ConfigError);
    expect(() => readInteger({ PORT: '70000' }, 'PORT', 80, 1, 65535)).toThrow(/PORT must be between/);
    expect(() => readCommonConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => readCommonConfig({ NATS_PREFIX: 'a.b' })).toThrow(/NATS_PREFIX/);
  });
});

describe('uuidv7', () => {
  it('has version 7 and the RFC variant', () => {
    const id = uuidv7();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('orders ids of one process by time, also within a millisecond', () => {
    const ids = Array.from({ length: 200 }, () => uuidv7(1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(uuidv7(1_700_000_000_001) > ids[ids.length - 1]!).toBe(true);
  });

  it('holds its millisecond in the first 48 bits', () => {
    const now = 1_764_240_000_123;
    const id = uuidv7(now);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
    expect(new Set(Array.from({ length: 1000 }, () => uuidv7()).map((u) => u.slice(19))).size).toBe(1000);
  });
});

describe('locate', () => {
  it('turns an offset into line and column', () => {
    expect(locate('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(locate('x', 0)).toEqual({ line: 1, column: 1 });
  });
});

describe('parseJson', () => {
  function errorOf(text: string) {
    try {
      parseJson(text);
    } catch (error) {
      return (error as HttpProblem).errors![0]!;
    }
    throw new Error('parsed');
  }

  it('says where a property name is missing', () => {
    expect(errorOf('{"a": 1,\n oops}')).toEqual({ message: 'expected double-quoted property name', line: 2, column: 2 });
  });

  it('names an unexpected token without echoing the input', () => {
    const error = errorOf('[1, "secret-value",]');
    expect(error.message).toBe('unexpected token `]`');
    expect(JSON.stringify(error)).not.toContain('secret-value');
  });

  it('places an unexpected end at the end of the text', () => {
    expect(errorOf('{"a":\n')).toEqual({ message: 'unexpected end of input', line: 2, column: 1 });
  });
});

describe('compiled validators without throwing', () => {
  it('list every violation with its path, and nothing for a matching value', () => {
    const validate = compileValidator<{ name: string }>({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
    expect(validate.errorsOf({ name: 'a' })).toEqual([]);
    expect(validate.errorsOf({ name: 1 })).toEqual([{ path: 'name', message: 'must be of type string' }]);
    expect(validate.errorsOf({})).toEqual([{ path: 'name', message: 'is required' }]);
  });
});
