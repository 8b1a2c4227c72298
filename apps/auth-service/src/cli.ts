import path from 'node:path';
import { createLogger, createPool, ensureDatabase, migrate, readChoice, readCommonConfig, readString, LOG_LEVELS } from '@custos/service-kit';
import { readKeyEncryption } from './keys/key-encryption';
import { publishOnce } from './revocation/feed';
import { EXIT, runCommand, USAGE, UsageError, type CliOutput } from './cli/commands';

/**
 * `npm run clients -- <command>`: first setup and operations without a token. Talks to the database
 * of DATABASE_URL directly (created and migrated as the service does), so whoever runs it needs
 * database access — the same trust as running the service.
 */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, output: CliOutput): Promise<number> {
  const databaseUrl = readString(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/custos');
  // Notes of the service kit (migrations) go to stderr, and only when they matter.
  const logger = createLogger('auth-cli', readChoice(env, 'LOG_LEVEL', LOG_LEVELS, 'warn'), process.stderr);
  try {
    // Usage errors first, before touching the database.
    if (argv.length === 0 || argv.includes('--help') || argv[0] === 'help') {
      output.out(USAGE);
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    await ensureDatabase(databaseUrl);
    await migrate({ databaseUrl, schema: 'auth', dir: path.join(__dirname, '..', 'migrations'), logger });
    const pool = createPool(databaseUrl, logger, { max: 2 });
    try {
      return await runCommand(pool, argv, output, {
        keyEncryption: () => readKeyEncryption(env),
        logger,
        announce: (entries) => {
          const { natsServers, natsPrefix } = readCommonConfig(env);
          return publishOnce({ natsServers, natsPrefix }, entries);
        },
      });
    } finally {
      await pool.end();
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      output.err(`error: ${(error as Error).message}`);
      output.err('run with --help for the commands');
      return EXIT.usage;
    }
    // Never the database URL (it may hold a password): the message of the failure only.
    output.err(`error: ${(error as Error).message ?? String(error)}`);
    return EXIT.refused;
  }
}

if (require.main === module) {
  const output: CliOutput = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
  runCli(process.argv.slice(2), process.env, output).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
      process.exitCode = EXIT.refused;
    },
  );
}
