import type { Command } from 'commander';
import { removeSession, writeSession } from './config-store';
import type { RemoteContext } from './context';
import { REMOTE_EXIT, UsageFailure } from './failures';
import { runAction } from './run-action';
import { requestToken } from './token-request';

/** Where the README's `npm start` puts the services. */
export const DEFAULT_URLS = {
  auth: 'http://localhost:8082',
  pap: 'http://localhost:8081',
  pdp: 'http://localhost:8080',
} as const;

interface LoginOptions {
  authUrl?: string;
  papUrl?: string;
  pdpUrl?: string;
  clientId?: string;
  clientSecret?: string;
  clientSecretStdin?: boolean;
  scope?: string;
}

function checkedUrl(text: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageFailure(`${flag}: \`${text}\` is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageFailure(`${flag}: \`${text}\` is not an http or https URL`);
  return text.replace(/\/+$/, '');
}

async function clientSecretOf(options: LoginOptions, context: RemoteContext): Promise<string> {
  if (options.clientSecretStdin && options.clientSecret !== undefined) {
    throw new UsageFailure('give the client secret either with --client-secret or with --client-secret-stdin, not both');
  }
  // Only the line ending a shell adds is dropped; a secret may well contain spaces.
  const secret = options.clientSecretStdin
    ? (await context.readStdin()).replace(/\r?\n$/, '')
    : (options.clientSecret ?? context.env.CUSTOS_CLIENT_SECRET);
  if (secret === undefined || secret === '') {
    throw new UsageFailure('no client secret; use --client-secret-stdin, --client-secret or CUSTOS_CLIENT_SECRET');
  }
  return secret;
}

async function login(options: LoginOptions, context: RemoteContext): Promise<number> {
  const { env } = context;
  const authUrl = checkedUrl(options.authUrl ?? env.CUSTOS_AUTH_URL ?? DEFAULT_URLS.auth, '--auth-url');
  const papUrl = checkedUrl(options.papUrl ?? env.CUSTOS_PAP_URL ?? DEFAULT_URLS.pap, '--pap-url');
  const pdpUrl = checkedUrl(options.pdpUrl ?? env.CUSTOS_PDP_URL ?? DEFAULT_URLS.pdp, '--pdp-url');
  const clientId = options.clientId ?? env.CUSTOS_CLIENT_ID;
  if (clientId === undefined || clientId === '') throw new UsageFailure('no client id; use --client-id or CUSTOS_CLIENT_ID');
  const clientSecret = await clientSecretOf(options, context);
  const issuedAt = context.now();
  const token = await requestToken({ authUrl, clientId, clientSecret, scope: options.scope });
  const expiresAt = issuedAt + token.expiresInSeconds * 1000;
  const file = await writeSession(env, { authUrl, papUrl, pdpUrl, clientId, accessToken: token.accessToken, expiresAt, scope: token.scope });
  context.out(`logged in as \`${clientId}\` until ${new Date(expiresAt).toISOString()} (scopes: ${token.scope || 'none'})\n`);
  context.out(`token cached in ${file}\n`);
  return REMOTE_EXIT.ok;
}

/** `custos login` and `custos logout`. */
export function registerLoginCommands(program: Command, context: RemoteContext): void {
  program
    .command('login')
    .description('get a token with OAuth client credentials and cache it, with the service URLs, for the other commands')
    .option('--auth-url <url>', `auth service (env CUSTOS_AUTH_URL; default ${DEFAULT_URLS.auth})`)
    .option('--pap-url <url>', `pap service (env CUSTOS_PAP_URL; default ${DEFAULT_URLS.pap})`)
    .option('--pdp-url <url>', `pdp service (env CUSTOS_PDP_URL; default ${DEFAULT_URLS.pdp})`)
    .option('--client-id <id>', 'client id (env CUSTOS_CLIENT_ID)')
    .option('--client-secret <secret>', 'client secret (env CUSTOS_CLIENT_SECRET); visible to other users in the process list')
    .option('--client-secret-stdin', 'read the client secret from standard input')
    .option('--scope <scopes>', 'ask for fewer scopes than the client has, space separated')
    .action((options: LoginOptions) => runAction(context, () => login(options, context)));

  program
    .command('logout')
    .description('forget the cached token')
    .action(() =>
      runAction(context, async () => {
        context.out((await removeSession(context.env)) ? 'logged out\n' : 'not logged in\n');
        return REMOTE_EXIT.ok;
      }),
    );
}
