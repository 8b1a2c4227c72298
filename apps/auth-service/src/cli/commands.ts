import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import { ALL_SCOPES } from '@custos/contracts';
import { HttpProblem, withTransaction, type Logger, type RevocationEntry } from '@custos/service-kit';
import { isPossibleClientId } from '../clients/authenticate';
import { ClientStore } from '../clients/client-store';
import { toView } from '../clients/view';
import { generateSecret, hashSecret } from '../hashing/secrets';
import { secureKeysAtRest } from '../keys/at-rest';
import type { KeyEncryption } from '../keys/key-encryption';
import { DEFAULT_ACTIVATION_DELAY_SECONDS, listKeys, retireSigningKey, rotateSigningKey, type KeyInfo } from '../keys/rotation';
import { RevocationStore } from '../revocation/revocation-store';
import { commandAudit } from '../audit/trail';
import { registerClient, validateNewClient } from '../routes/clients';

/** Where a command writes: stdout for results (secrets included), stderr for notes and errors. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/** Exit codes: 0 done, 1 refused (unknown id, invalid client...), 2 the command line is wrong. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

export class UsageError extends Error {}

/** What commands need besides the database. */
export interface CliContext {
  /** The operator keys, read only when a command writes a key. */
  keyEncryption: () => KeyEncryption;
  logger: Logger;
  /** Publishes revocations to pap and pdp over NATS; false when NATS cannot be reached. */
  announce: (entries: readonly RevocationEntry[]) => Promise<boolean>;
}

export const USAGE = `usage: npm run clients -- <command> [options]

commands:
  create --solutions <s1,s2|*> --scopes <scope1,scope2> [--description <text>]
                          register a client; prints its id and secret (the secret is shown this once)
  list                    every client (never a secret)
  delete <client-id>      remove a client and revoke the tokens it holds
  rotate-secret <client-id> [--revoke-tokens]
                          a new secret replaces the old one at once; prints it this once;
                          --revoke-tokens also revokes the tokens issued so far (a leaked secret)
  rotate-key [--activate-in <seconds>]
                          new signing key: published now, signs after the delay (default ${DEFAULT_ACTIVATION_DELAY_SECONDS} s);
                          the old key stays published until every token it signed has expired
  keys                    the signing keys and their states
  retire-key <kid>        withdraw a key now (compromise); refused for the last key that signs

options:
  --json                  machine-readable output
  --help                  this text

scopes: ${ALL_SCOPES.join(', ')}
The database is DATABASE_URL (default postgres://postgres@127.0.0.1:5432/custos), created and migrated if needed.
rotate-key encrypts keys as auth-service does: set AUTH_KEY_ENCRYPTION_KEY (and AUTH_KEY_ENCRYPTION_KEY_PREVIOUS) as for it.`;

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');

const iso = (date: Date | null) => (date === null ? '-' : date.toISOString());

function keyLine(key: KeyInfo): string {
  return `${key.kid}  ${key.state.padEnd(8)}  activates ${iso(key.activatesAt)}  retires ${iso(key.retiresAt)}`;
}

const keyJson = (key: KeyInfo) => ({
  kid: key.kid,
  algorithm: key.algorithm,
  state: key.state,
  created_at: key.createdAt.toISOString(),
  activates_at: key.activatesAt.toISOString(),
  retires_at: key.retiresAt?.toISOString() ?? null,
});

function describeProblem(problem: HttpProblem, output: CliOutput): void {
  output.err(`error: ${problem.detail}`);
  for (const error of problem.errors ?? []) output.err(`  ${error.path ? `${error.path}: ` : ''}${error.message}`);
}

/**
 * Key ids are base64url and may begin with `-`, which parseArgs would read as an option. This CLI has no
 * short options, so a token with a single leading dash is always a value: it goes after `--`.
 */
function withDashedValuesLast(argv: readonly string[]): string[] {
  const isDashedValue = (token: string) => /^-[^-]/.test(token);
  const dashed = argv.filter(isDashedValue);
  const others = argv.filter((token) => !isDashedValue(token));
  return dashed.length === 0 ? others : [...others, '--', ...dashed];
}

/** Runs one command against the database behind `pool`; returns the exit code. */
export async function runCommand(pool: Pool, argv: readonly string[], output: CliOutput, context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: withDashedValuesLast(argv),
    allowPositionals: true,
    strict: true,
    options: {
      solutions: { type: 'string', multiple: true },
      scopes: { type: 'string', multiple: true },
      description: { type: 'string' },
      'activate-in': { type: 'string' },
      'revoke-tokens': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    output.out(USAGE);
    return command === undefined && !values.help ? EXIT.usage : EXIT.ok;
  }
  const json = values.json === true;
  const expectArguments = (count: number, what: string) => {
    if (rest.length !== count) throw new UsageError(`\`${command}\` takes ${what}`);
  };
  const onlyArgument = (what: string): string => {
    const [first] = rest;
    if (rest.length !== 1 || first === undefined) throw new UsageError(`\`${command}\` takes ${what}`);
    return first;
  };
  const clients = new ClientStore(pool);
  // A change of a client is audited as the HTTP routes audit it: its record in the change's transaction (who: cli:<user>).
  const audit = commandAudit(pool, context.logger);
  /** Tells pap and pdp of a revocation, or says when they learn it. */
  const announce = async (entry: RevocationEntry) => {
    if (!(await context.announce([entry]))) output.err('note: nats unreachable; pap and pdp refuse its tokens after their next poll of auth (within 5 s)');
  };

  switch (command) {
    case 'create': {
      expectArguments(0, 'options only');
      const body: Record<string, unknown> = {
        solutions: (values.solutions ?? []).flatMap(list),
        scopes: (values.scopes ?? []).flatMap(list),
      };
      if (values.description !== undefined) body.description = values.description;
      let valid;
      try {
        valid = validateNewClient(body);
      } catch (error) {
        if (!(error instanceof HttpProblem)) throw error;
        describeProblem(error, output);
        return EXIT.refused;
      }
      const { client, secret } = await withTransaction(pool, async (tx) => {
        const registered = await registerClient(new ClientStore(tx), valid);
        await audit(tx, 'client.create', registered.client.id);
        return registered;
      });
      if (json) {
        output.out(JSON.stringify({ ...toView(client), client_secret: secret }));
      } else {
        output.out(`client_id:     ${client.id}`);
        output.out(`client_secret: ${secret}`);
        output.out(`solutions:     ${client.solutions.join(' ')}`);
        output.out(`scopes:        ${client.scopes.join(' ')}`);
        output.err('the secret is shown only now and stored only as a hash: keep it somewhere safe');
      }
      return EXIT.ok;
    }
    case 'list': {
      expectArguments(0, 'no arguments');
      const all = (await clients.list()).map(toView);
      if (json) output.out(JSON.stringify(all));
      else if (all.length === 0) output.err('no clients');
      else {
        for (const client of all) {
          const description = client.description === '' ? '' : `  ${JSON.stringify(client.description)}`;
          output.out(`${client.client_id}  solutions=${client.solutions.join(',')}  scopes=${client.scopes.join(',')}  created=${client.created_at}${description}`);
        }
      }
      return EXIT.ok;
    }
    case 'delete': {
      const id = onlyArgument('one client id');
      // The client, the revocation of its tokens and the audit record: all or nothing, as over HTTP.
      const revoked = !isPossibleClientId(id)
        ? undefined
        : await withTransaction(pool, async (tx) => {
            if (!(await new ClientStore(tx).delete(id))) return undefined;
            const entry = await new RevocationStore(tx).revokeClient(id, Date.now());
            await audit(tx, 'client.delete', id);
            return entry;
          });
      if (json) output.out(JSON.stringify(revoked !== undefined));
      if (revoked === undefined) {
        output.err(`no client \`${id.slice(0, 128)}\``);
        return EXIT.refused;
      }
      await announce(revoked);
      if (!json) {
        output.out(`deleted ${id}`);
        output.err('its tokens are revoked: pap and pdp refuse them within seconds instead of when they expire; it cannot get new ones');
      }
      return EXIT.ok;
    }
    case 'rotate-secret': {
      const id = onlyArgument('one client id');
      const secret = generateSecret();
      const secretHash = await hashSecret(secret);
      const revoke = values['revoke-tokens'] === true;
      const rotated = !isPossibleClientId(id)
        ? undefined
        : await withTransaction(pool, async (tx) => {
            if (!(await new ClientStore(tx).setSecretHash(id, secretHash))) return undefined;
            const entry = revoke ? await new RevocationStore(tx).revokeClient(id, Date.now()) : undefined;
            await audit(tx, 'client.rotate-secret', id);
            return { entry };
          });
      if (rotated === undefined) {
        output.err(`no client \`${id.slice(0, 128)}\``);
        return EXIT.refused;
      }
      if (rotated.entry !== undefined) await announce(rotated.entry);
      if (json) output.out(JSON.stringify({ client_id: id, client_secret: secret }));
      else {
        output.out(`client_id:     ${id}`);
        output.out(`client_secret: ${secret}`);
        output.err(
          revoke
            ? 'the old secret no longer works, and the tokens issued before are revoked'
            : 'the old secret no longer works; tokens issued before stay valid until they expire (--revoke-tokens revokes them)',
        );
      }
      return EXIT.ok;
    }
    case 'rotate-key': {
      expectArguments(0, 'options only');
      const raw = values['activate-in'];
      const delay = raw === undefined ? DEFAULT_ACTIVATION_DELAY_SECONDS : /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(delay) || delay > 604_800) throw new UsageError('--activate-in takes whole seconds, 0 to 604800');
      // Like auth at start: every stored key under the current operator key, or a refusal naming the one missing.
      const encryption = context.keyEncryption();
      await secureKeysAtRest(pool, encryption, context.logger);
      const rotation = await rotateSigningKey(pool, delay, encryption, commandAudit(pool, context.logger));
      if (json) {
        output.out(JSON.stringify({ key: keyJson(rotation.key), retiring: rotation.retiring.map(keyJson), deleted: rotation.deleted }));
      } else {
        output.out(`new key:  ${keyLine(rotation.key)}`);
        for (const key of rotation.retiring) output.out(`retiring: ${keyLine(key)}`);
        if (delay < 30) {
          output.err('note: with an activation delay under 30 s, a verifier that fetched the key set moments ago may refuse new tokens for a few seconds');
        }
      }
      return EXIT.ok;
    }
    case 'keys': {
      expectArguments(0, 'no arguments');
      const keys = await listKeys(pool);
      if (json) output.out(JSON.stringify(keys.map(keyJson)));
      else if (keys.length === 0) output.err('no signing keys yet: auth-service creates one when it first starts');
      else for (const key of keys) output.out(keyLine(key));
      return EXIT.ok;
    }
    case 'retire-key': {
      const kid = onlyArgument('one key id');
      const outcome = await retireSigningKey(pool, kid, commandAudit(pool, context.logger));
      if ('refused' in outcome) {
        output.err(
          outcome.refused === 'unknown'
            ? `no published key \`${kid.slice(0, 128)}\``
            : 'refused: no other key signs yet; run `rotate-key --activate-in 0` first',
        );
        return EXIT.refused;
      }
      if (json) output.out(JSON.stringify(keyJson(outcome.retired)));
      else output.out(`retired:  ${keyLine(outcome.retired)}`);
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown command \`${command.slice(0, 64)}\``);
  }
}
