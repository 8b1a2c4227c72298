import { ConfigError, StartupError, describeStartupFailure } from '../src';

/** Errors shaped as pg and node raise them, so the sentences can be read without a server that fails. */
const socketError = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`connect ${code}`), { code, syscall: 'connect', ...extra });
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('describeStartupFailure', () => {
  it('names the default address and says the variable is unset', () => {
    expect(describeStartupFailure(socketError('ECONNREFUSED'), {})).toBe(
      'could not connect to PostgreSQL at `127.0.0.1:5432` (the default, DATABASE_URL is unset): nothing listens there ' +
        '(connection refused); start PostgreSQL there, or set DATABASE_URL to a server that runs',
    );
  });

  it('names the configured address, without the password', () => {
    const env = { DATABASE_URL: 'postgres://ann:secret@db.internal:6543/custos' };
    const sentence = describeStartupFailure(socketError('ENOTFOUND', { syscall: 'getaddrinfo', hostname: 'db.internal' }), env);
    expect(sentence).toBe(
      'could not connect to PostgreSQL at `db.internal:6543` (DATABASE_URL): the host name `db.internal` does not resolve; ' +
        'start PostgreSQL there, or set DATABASE_URL to a server that runs',
    );
    expect(describeStartupFailure(serverError('28P01', 'password authentication failed for user "ann"'), env)).toBe(
      'PostgreSQL at `db.internal:6543` (DATABASE_URL) refused user `ann`: password authentication failed for user "ann"; ' +
        'correct the user and password in DATABASE_URL',
    );
  });

  it('passes configuration errors and startup errors on with what to do', () => {
    expect(describeStartupFailure(new ConfigError('PDP_PORT must be an integer, got `x`'), {})).toBe(
      'PDP_PORT must be an integer, got `x`; correct that environment variable and start again',
    );
    expect(describeStartupFailure(new StartupError('as said'), {})).toBe('as said');
  });

  it('says which port is taken', () => {
    const busy = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen', port: 8081 });
    expect(describeStartupFailure(busy, {})).toMatch(/^port `8081` is in use; /);
  });

  it('leaves anything else to its stack trace', () => {
    expect(describeStartupFailure(new TypeError('x is undefined'), {})).toBeUndefined();
    expect(describeStartupFailure(serverError('42P01', 'relation "pap.nothing" does not exist'), {})).toBeUndefined();
    expect(describeStartupFailure('a string', {})).toBeUndefined();
  });
});
