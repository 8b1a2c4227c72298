import type { Command } from 'commander';
import { idPath } from './api';
import { commandGroup } from '../output/command-group';
import type { RemoteContext } from './context';
import { kindOfId, rootIdOf, type DocumentKind } from './document-id';
import { REMOTE_EXIT, RefusedFailure, UsageFailure } from './failures';
import { jsonOf } from './http-client';
import { displayName, readInput } from './input';
import { revisionSuffix } from './revision-text';
import { runAction } from './run-action';
import { sessionApi } from './session-api';
import { registerVersionCommands } from './version-commands';

const PLURAL: Record<DocumentKind, string> = { policy: 'policies', timer: 'timers' };

async function documentFile(file: string, context: RemoteContext): Promise<{ xml: string; name: string }> {
  return { xml: await readInput(file, context), name: displayName(file) };
}

function idsOf(body: unknown): string[] {
  if (!Array.isArray(body)) return [];
  return body
    .map((entry: unknown) => (typeof entry === 'object' && entry !== null ? (entry as { identifier?: unknown }).identifier : undefined))
    .filter((id): id is string => typeof id === 'string');
}

function checkedId(kind: DocumentKind, id: string): string {
  if (kindOfId(id) !== kind) throw new UsageFailure(`\`${id}\` is not a ${kind} id; expected \`urn:${kind}:<solution>:<name>\``);
  return id;
}

/**
 * `custos policy …` and `custos timer …`: the two document kinds have the same resources (api.md §4), so one set
 * of commands serves both.
 */
export function registerDocumentCommands(program: Command, kind: DocumentKind, context: RemoteContext): void {
  const base = `/ws/${kind}`;
  const group = commandGroup(program, kind, `${PLURAL[kind]}: manage them on a running stack`);
  const act = (body: () => Promise<number>) => runAction(context, body);

  group
    .command('add')
    .description(`add a new ${kind} from an XML file (not deployed yet)`)
    .argument('<file>', `the ${kind} XML, or - for standard input`)
    .action((file: string) =>
      act(async () => {
        const { xml, name } = await documentFile(file, context);
        const api = await sessionApi(context);
        const answer = await api.pap('POST', base, { body: xml, contentType: 'application/xml', sentFile: name });
        const location = answer.headers.get('location');
        const id = location ? decodeURIComponent(location.slice(location.lastIndexOf('/') + 1)) : rootIdOf(xml);
        context.out(`added ${id ?? `the ${kind} of ${name}`}\n`);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('replace')
    .description(`replace a ${kind} with a new text of the same id; a deployed one is re-deployed at once`)
    .argument('<file>', `the ${kind} XML, or - for standard input`)
    .action((file: string) =>
      act(async () => {
        const { xml, name } = await documentFile(file, context);
        const id = rootIdOf(xml);
        if (id === undefined) throw new UsageFailure(`${name}: the root element has no \`id\` attribute`);
        const api = await sessionApi(context);
        const answer = await api.pap('PUT', `${base}/${idPath(checkedId(kind, id))}`, {
          body: xml,
          contentType: 'application/xml',
          sentFile: name,
        });
        context.out(`replaced ${id}${revisionSuffix(answer)}\n`);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('show')
    .description(`print a ${kind}'s XML as stored`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .option('--json', `print the ${kind} resource (deployed, created, updated) as JSON`)
    .action((id: string, options: { json?: boolean }) =>
      act(async () => {
        const api = await sessionApi(context);
        const path = `${base}/${idPath(checkedId(kind, id))}`;
        if (options.json) {
          context.out(`${JSON.stringify(await api.papJson('GET', path), null, 2)}\n`);
        } else {
          const answer = await api.pap('GET', path, { accept: 'application/xml' });
          context.out(answer.text.endsWith('\n') ? answer.text : `${answer.text}\n`);
        }
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('deploy')
    .description(`deploy a ${kind}; exit 1 when there is no such ${kind}`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .action((id: string) =>
      act(async () => {
        const api = await sessionApi(context);
        const answer = await api.pap('POST', `${base}/${idPath(checkedId(kind, id))}/deploy`);
        if (jsonOf(answer) !== true) throw new RefusedFailure([`no ${kind} \`${id}\``]);
        context.out(`deployed ${id}${revisionSuffix(answer)}\n`);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('revoke')
    .description(`revoke a deployed ${kind} (it stays stored); a ${kind} that was not deployed is left as it is`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .action((id: string) =>
      act(async () => {
        const api = await sessionApi(context);
        const answer = await api.pap('POST', `${base}/${idPath(checkedId(kind, id))}/revoke`);
        const done = jsonOf(answer) === true;
        context.out(done ? `revoked ${id}${revisionSuffix(answer)}\n` : `${id} was not deployed; nothing changed\n`);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('remove')
    .description(`remove a ${kind} (revoked first when deployed); exit 1 when there is no such ${kind}`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .action((id: string) =>
      act(async () => {
        const api = await sessionApi(context);
        const answer = await api.pap('DELETE', `${base}/${idPath(checkedId(kind, id))}`);
        if (jsonOf(answer) !== true) throw new RefusedFailure([`no ${kind} \`${id}\``]);
        context.out(`removed ${id}${revisionSuffix(answer)}\n`);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('status')
    .description(`print \`deployed\` or \`not deployed\``)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .action((id: string) =>
      act(async () => {
        const api = await sessionApi(context);
        const deployed = (await api.papJson('GET', `${base}/${idPath(checkedId(kind, id))}/status`)) === true;
        context.out(deployed ? 'deployed\n' : 'not deployed\n');
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('list')
    .description(`list the ${PLURAL[kind]} of the solutions your token covers, and whether each is deployed`)
    .option('--deployed', 'only the deployed ones')
    .option('--json', 'print JSON: [{"identifier", "deployed"}]')
    .action((options: { deployed?: boolean; json?: boolean }) =>
      act(async () => {
        const api = await sessionApi(context);
        const deployed = new Set(idsOf(await api.papJson('GET', `/ws/${kind}-ids/deployed`)));
        const all = options.deployed ? [...deployed] : idsOf(await api.papJson('GET', `/ws/${kind}-ids`));
        const rows = all.map((identifier) => ({ identifier, deployed: deployed.has(identifier) }));
        if (options.json) {
          context.out(`${JSON.stringify(rows, null, 2)}\n`);
        } else {
          const width = Math.max(0, ...rows.map((row) => row.identifier.length));
          for (const row of rows) context.out(`${row.identifier.padEnd(width)}  ${row.deployed ? 'deployed' : 'not deployed'}\n`);
        }
        return REMOTE_EXIT.ok;
      }),
    );

  registerVersionCommands(group, kind, base, (id) => checkedId(kind, id), context);
}
