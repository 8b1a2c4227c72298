import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { configDir, readSession, removeSession, requireSession, sessionPath, writeSession, type Session } from '../src/remote/config-store';
import { UsageFailure } from '../src/remote/failures';
import { tempConfig } from './remote-support/run-cli';

const session = (expiresAt: number): Session => ({
  authUrl: 'http://a',
  papUrl: 'http://p',
  pdpUrl: 'http://d',
  clientId: 'admin',
  accessToken: 'the-token',
  expiresAt,
  scope: 'policy:read',
});

describe('configDir', () => {
  it('prefers CUSTOS_CONFIG_DIR, then XDG_CONFIG_HOME/custos, then ~/.config/custos', () => {
    expect(configDir({ CUSTOS_CONFIG_DIR: '/x/c', XDG_CONFIG_HOME: '/x/xdg' })).toBe('/x/c');
    expect(configDir({ XDG_CONFIG_HOME: '/x/xdg' })).toBe('/x/xdg/custos');
    expect(configDir({})).toBe(path.join(homedir(), '.config', 'custos'));
  });
});

describe('the session file', () => {
  let config: Awaited<ReturnType<typeof tempConfig>>;
  beforeEach(async () => {
    config = await tempConfig();
  });
  afterEach(() => config.cleanup());

  it('is written 0600 in a 0700 directory and read back', async () => {
    const written = session(Date.now() + 60_000);
    await writeSession(config.env, written);
    expect((await stat(config.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(sessionPath(config.env))).mode & 0o777).toBe(0o600);
    expect(await readSession(config.env)).toEqual(written);
  });

  it('takes 0600 and 0700 even where a looser file and directory were before', async () => {
    await mkdir(config.dir, { recursive: true });
    await chmod(config.dir, 0o755);
    await writeFile(sessionPath(config.env), '{}', { mode: 0o644 });
    await writeSession(config.env, session(Date.now() + 60_000));
    expect((await stat(config.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(sessionPath(config.env))).mode & 0o777).toBe(0o600);
  });

  it('is absent before a login and after removal', async () => {
    expect(await readSession(config.env)).toBeUndefined();
    expect(await removeSession(config.env)).toBe(false);
    await writeSession(config.env, session(Date.now() + 60_000));
    expect(await removeSession(config.env)).toBe(true);
    expect(await readSession(config.env)).toBeUndefined();
  });

  it('reports a damaged file as a usage failure that says to log in again', async () => {
    await mkdir(config.dir, { recursive: true });
    await writeFile(sessionPath(config.env), '{"accessToken": 3}');
    await expect(readSession(config.env)).rejects.toThrow(new UsageFailure(`the login cache \`${sessionPath(config.env)}\` is damaged; run \`custos login\` again`));
  });

  it('is required to be there and not expired', async () => {
    await expect(requireSession(config.env, Date.now())).rejects.toThrow('not logged in; run `custos login` first');
    const expiry = Date.UTC(2026, 0, 1, 12);
    await writeSession(config.env, session(expiry));
    await expect(requireSession(config.env, expiry + 1)).rejects.toThrow(
      'the token of `admin` expired at 2026-01-01T12:00:00.000Z; run `custos login` again',
    );
    // Ten seconds before the expiry the token counts as expired: a request might arrive too late.
    await expect(requireSession(config.env, expiry - 5_000)).rejects.toThrow(UsageFailure);
    await expect(requireSession(config.env, expiry - 60_000)).resolves.toMatchObject({ accessToken: 'the-token' });
    expect(await readFile(sessionPath(config.env), 'utf8')).toContain('"expiresAt": 1767268800000');
  });
});
