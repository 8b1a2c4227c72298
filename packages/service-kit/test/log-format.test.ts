import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { ConfigError, createLogger, prettyLines, readLogFormat, wantsColor, type TextOutput } from '@custos/service-kit';

const run = promisify(execFile);
const ESC = '\u001b[';

function textSink(): TextOutput & { text(): string } {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

function jsonSink(): Writable & { text(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(sink, { text: () => text });
}

/** One record carrying a secret under every redacted name the services use. */
function logSecrets(logger: ReturnType<typeof createLogger>): void {
  logger.info(
    {
      req: { headers: { authorization: 'Bearer header-secret-1', cookie: 'sid=cookie-secret-2' } },
      client_secret: 'client-secret-3',
      password: 'password-secret-4',
      body: { token: 'token-secret-5', access_token: 'access-secret-6' },
    },
    'credentials arrived',
  );
}
const SECRETS = ['header-secret-1', 'cookie-secret-2', 'client-secret-3', 'password-secret-4', 'token-secret-5', 'access-secret-6'];

describe('choosing the log format', () => {
  it('writes JSON to a pipe and pretty lines to a terminal unless told', () => {
    expect(readLogFormat({}, false)).toBe('json');
    expect(readLogFormat({}, true)).toBe('pretty');
    expect(readLogFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(readLogFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(readLogFormat({ LOG_FORMAT: '' }, false)).toBe('json');
  });

  it('refuses an unknown format by name', () => {
    expect(() => readLogFormat({ LOG_FORMAT: 'fancy' }, false)).toThrow(ConfigError);
    expect(() => readLogFormat({ LOG_FORMAT: 'fancy' }, false)).toThrow('LOG_FORMAT must be one of `json`, `pretty`, got `fancy`');
  });

  it('colors a terminal and follows NO_COLOR and FORCE_COLOR', () => {
    expect(wantsColor({}, true)).toBe(true);
    expect(wantsColor({}, false)).toBe(false);
    expect(wantsColor({ NO_COLOR: '1' }, true)).toBe(false);
    expect(wantsColor({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(wantsColor({ FORCE_COLOR: '0' }, true)).toBe(false);
  });
});

describe('pretty lines', () => {
  it('print one line per record with the level, message and fields', () => {
    const sink = textSink();
    const logger = createLogger('test', 'info', prettyLines(sink, false));
    logger.warn({ revision: 7 }, 'snapshot is late');
    const lines = sink.text().split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN: snapshot is late \{"revision":7\}$/);
    expect(sink.text()).not.toContain(ESC);
  });

  it('shorten the access line of a request', () => {
    const sink = textSink();
    const logger = createLogger('test', 'info', prettyLines(sink, false));
    logger.info({ requestId: 'r-1', method: 'GET', path: '/health/ready', status: 503, ms: 1.5 }, 'request');
    expect(sink.text()).toMatch(/INFO: GET \/health\/ready 503 1\.5 ms\n$/);
    expect(sink.text()).not.toContain('r-1');
  });

  it('are colored only when asked', () => {
    const sink = textSink();
    createLogger('test', 'info', prettyLines(sink, true)).error('broken');
    expect(sink.text()).toContain(`${ESC}31mERROR`);
  });

  it('keep secrets redacted', () => {
    const sink = textSink();
    logSecrets(createLogger('test', 'info', prettyLines(sink, false)));
    expect(sink.text()).toContain('credentials arrived');
    expect(sink.text()).toContain('[redacted]');
    for (const secret of SECRETS) expect(sink.text()).not.toContain(secret);
  });
});

describe('JSON lines', () => {
  it('keep secrets redacted', () => {
    const sink = jsonSink();
    logSecrets(createLogger('test', 'info', sink));
    const record = JSON.parse(sink.text()) as Record<string, unknown>;
    expect(record).toMatchObject({ level: 'info', service: 'test', msg: 'credentials arrived', client_secret: '[redacted]', password: '[redacted]' });
    for (const secret of SECRETS) expect(sink.text()).not.toContain(secret);
  });
});

describe('a service process', () => {
  const built = path.join(__dirname, '..', 'dist', 'index.js');
  const script = `const { createLogger } = require(${JSON.stringify(built)});
const logger = createLogger('probe', 'info');
logger.info({ client_secret: 'probe-secret' }, 'hello');
logger.flush();`;
  const start = (env: Record<string, string>) => {
    const base: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !['LOG_FORMAT', 'NO_COLOR', 'FORCE_COLOR'].includes(name)) base[name] = value;
    }
    return run(process.execPath, ['-e', script], { env: { ...base, ...env } });
  };

  beforeAll(() => {
    if (!existsSync(built)) throw new Error(`${built} is missing; build service-kit first`);
  });

  it('writes JSON lines to a pipe by default', async () => {
    const { stdout } = await start({});
    expect(JSON.parse(stdout)).toMatchObject({ level: 'info', service: 'probe', msg: 'hello', client_secret: '[redacted]' });
  });

  it('writes pretty lines, uncolored on a pipe, with LOG_FORMAT=pretty', async () => {
    const { stdout } = await start({ LOG_FORMAT: 'pretty' });
    expect(stdout).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: hello \{"client_secret":"\[redacted\]"\}\n$/);
  });

  it('colors pretty lines with FORCE_COLOR, as npm start asks', async () => {
    const { stdout } = await start({ LOG_FORMAT: 'pretty', FORCE_COLOR: '1' });
    expect(stdout).toContain(`${ESC}32mINFO`);
    expect(stdout).not.toContain('probe-secret');
  });
});
