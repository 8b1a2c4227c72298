import { HEADERS, parseWarnings } from '@custos/contracts';
import type { Command } from 'commander';
import { idPath } from './api';
import type { RemoteContext } from './context';
import { REMOTE_EXIT, UsageFailure } from './failures';
import { displayName, readInput } from './input';
import { revisionSuffix } from './revision-text';
import { runAction } from './run-action';
import { sessionApi } from './session-api';

const COMPONENT_TYPES = ['PEP', 'PIP', 'PXP'];

/** The identifier a component file names, when the file is JSON of that shape; the pap judges the rest. */
function identifierOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { id?: { identifier?: unknown } } | null;
    const identifier = body?.id?.identifier;
    return typeof identifier === 'string' ? identifier : undefined;
  } catch {
    return undefined;
  }
}

interface ComponentRow {
  id?: { componentType?: unknown; identifier?: unknown };
  urls?: unknown;
}

function rowOf(component: ComponentRow): { type: string; identifier: string; urls: string } {
  const type = typeof component.id?.componentType === 'string' ? component.id.componentType : '?';
  const identifier = typeof component.id?.identifier === 'string' ? component.id.identifier : '?';
  const urls = Array.isArray(component.urls) ? component.urls.filter((u): u is string => typeof u === 'string').join(' ') : '';
  return { type, identifier, urls };
}

/** `custos component register|show|list`. */
export function registerComponentCommands(program: Command, context: RemoteContext): void {
  const group = program.command('component').description('components (PEPs, PIPs, PXPs): register and look them up');
  const act = (body: () => Promise<number>) => runAction(context, body);

  group
    .command('register')
    .description('register a component from a JSON file; registering an id again replaces it')
    .argument('<file>', 'the Component JSON, or - for standard input')
    .action((file: string) =>
      act(async () => {
        const text = await readInput(file, context);
        const api = await sessionApi(context);
        // Sent as written, so the line and column of a syntax error the pap reports point into the file.
        const answer = await api.pap('POST', '/ws/component', { body: text, contentType: 'application/json', sentFile: displayName(file) });
        context.out(`registered ${identifierOf(text) ?? `the component of ${displayName(file)}`}${revisionSuffix(answer)}\n`);
        // Registered, but pap has advice (e.g. a URL the pdps' default egress policy refuses): said on stderr.
        for (const warning of parseWarnings(answer.headers.get(HEADERS.warning))) {
          context.err(`warning: ${displayName(file)}${warning.path === undefined ? '' : `: ${warning.path}`}: ${warning.message}\n`);
        }
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('show')
    .description('print a component as JSON')
    .argument('<id>', 'urn:component:<solution>:<pep|pip|pxp>:<name>')
    .action((id: string) =>
      act(async () => {
        const api = await sessionApi(context);
        context.out(`${JSON.stringify(await api.papJson('GET', `/ws/component/${idPath(id)}`), null, 2)}\n`);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('list')
    .description('list the components of the solutions your token covers: type, id and URLs')
    .option('--type <type>', 'only PEP, PIP or PXP')
    .option('--json', 'print the components as JSON')
    .action((options: { type?: string; json?: boolean }) =>
      act(async () => {
        const type = options.type?.toUpperCase();
        if (type !== undefined && !COMPONENT_TYPES.includes(type)) {
          throw new UsageFailure(`--type: \`${options.type ?? ''}\` is not one of PEP, PIP, PXP`);
        }
        const api = await sessionApi(context);
        const body = await api.papJson('GET', `/ws/component${type ? `?type=${type}` : ''}`);
        const components = Array.isArray(body) ? (body as ComponentRow[]) : [];
        if (options.json) {
          context.out(`${JSON.stringify(components, null, 2)}\n`);
        } else {
          const rows = components.map(rowOf);
          const width = Math.max(0, ...rows.map((row) => row.identifier.length));
          for (const row of rows) context.out(`${row.type}  ${row.identifier.padEnd(width)}  ${row.urls}\n`);
        }
        return REMOTE_EXIT.ok;
      }),
    );
}
