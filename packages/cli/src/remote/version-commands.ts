import type { Command } from 'commander';
import { idPath } from './api';
import type { RemoteContext } from './context';
import type { DocumentKind } from './document-id';
import { REMOTE_EXIT, UsageFailure } from './failures';
import { jsonOf } from './http-client';
import { revisionSuffix } from './revision-text';
import { runAction } from './run-action';
import { sessionApi } from './session-api';

interface VersionLine {
  number: number;
  clientId: string | null;
  requestId: string | null;
  createdAt: string;
  current: boolean;
  deployed: boolean;
}

/** A version number as typed: digits only, from 1, checked before pap is asked. */
function versionNumber(text: string): string {
  if (!/^[1-9]\d{0,9}$/.test(text)) throw new UsageFailure(`\`${text}\` is not a version number (1, 2, …)`);
  return text;
}

function versionTable(lines: readonly VersionLine[]): string {
  const rows = lines.map((line) => [
    `v${line.number}`,
    line.createdAt,
    line.clientId ?? '-',
    line.requestId ?? '-',
    [line.current ? 'current' : '', line.deployed ? 'deployed' : ''].filter(Boolean).join(', '),
  ]);
  const widths = [0, 1, 2, 3].map((column) => Math.max(0, ...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => `${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()}\n`).join('');
}

/**
 * `custos policy|timer versions|show-version|diff|restore`: the history pap keeps of each document (api.md,
 * "Versions and rollback"), on the group of its kind.
 */
export function registerVersionCommands(group: Command, kind: DocumentKind, base: string, checkedId: (id: string) => string, context: RemoteContext): void {
  const act = (body: () => Promise<number>) => runAction(context, body);
  const documentPath = (id: string) => `${base}/${idPath(checkedId(id))}`;

  group
    .command('versions')
    .description(`list every text the ${kind} was stored with: number, when, who, request id, current and deployed`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .option('--json', 'print pap\'s answer as JSON')
    .action((id: string, options: { json?: boolean }) =>
      act(async () => {
        const api = await sessionApi(context);
        const answer = (await api.papJson('GET', `${documentPath(id)}/versions`)) as { versions: VersionLine[] };
        context.out(options.json ? `${JSON.stringify(answer, null, 2)}\n` : versionTable(answer.versions));
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('show-version')
    .description(`print the XML of one version of a ${kind}`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .argument('<n>', 'the version number')
    .action((id: string, n: string) =>
      act(async () => {
        const api = await sessionApi(context);
        const answer = await api.pap('GET', `${documentPath(id)}/versions/${versionNumber(n)}`, { accept: 'application/xml' });
        context.out(answer.text.endsWith('\n') ? answer.text : `${answer.text}\n`);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('diff')
    .description(`print a unified diff from version <from> of a ${kind} to version <to> (default: the current one)`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .argument('<from>', 'the older version')
    .argument('[to]', 'the newer version')
    .action((id: string, from: string, to: string | undefined) =>
      act(async () => {
        const api = await sessionApi(context);
        const query = `from=${versionNumber(from)}${to === undefined ? '' : `&to=${versionNumber(to)}`}`;
        const answer = await api.pap('GET', `${documentPath(id)}/diff?${query}`, { accept: 'text/plain' });
        context.out(answer.text);
        return REMOTE_EXIT.ok;
      }),
    );

  group
    .command('restore')
    .description(`make the text of version <n> current as a new version (a deployed ${kind} is re-deployed with it)`)
    .argument('<id>', `urn:${kind}:<solution>:<name>`)
    .argument('<n>', 'the version whose text becomes current')
    .option('--deploy', `deploy the ${kind} too if it is not deployed (one revision for both)`)
    .action((id: string, n: string, options: { deploy?: boolean }) =>
      act(async () => {
        const api = await sessionApi(context);
        const path = `${documentPath(id)}/versions/${versionNumber(n)}/restore${options.deploy ? '?deploy=true' : ''}`;
        const answer = await api.pap('POST', path);
        const body = jsonOf(answer) as { version?: number; deployed?: boolean } | undefined;
        const version = body?.version === undefined ? '' : ` as v${body.version}`;
        context.out(`restored ${id} v${n}${version}${body?.deployed === true ? ', deployed' : ''}${revisionSuffix(answer)}\n`);
        return REMOTE_EXIT.ok;
      }),
    );
}
