import type { Command } from 'commander';
import { HEADERS } from '@custos/contracts';
import type { Api } from './api';
import type { RemoteContext } from './context';
import { REMOTE_EXIT } from './failures';
import { jsonOf } from './http-client';
import { explainTree } from './explain-tree';
import { displayName, readInput } from './input';
import { parseRevision, runAction } from './run-action';
import { sessionApi } from './session-api';

interface DecisionOptions {
  minRevision?: number;
  json?: boolean;
}

/**
 * Asks the pdp about the event in `file`, sent exactly as written so that a problem the pdp locates points into the
 * file. Unless told otherwise, the pdp must first have applied every change this login made (`Min-Policy-Revision`).
 */
async function ask(api: Api, path: string, file: string, options: DecisionOptions, context: RemoteContext): Promise<unknown> {
  const text = await readInput(file, context);
  const minRevision = options.minRevision ?? api.lastRevision;
  const answer = await api.pdp('POST', path, {
    body: text,
    contentType: 'application/json',
    sentFile: displayName(file),
    headers: minRevision === undefined ? {} : { [HEADERS.minPolicyRevision]: String(minRevision) },
  });
  return jsonOf(answer);
}

const MIN_REVISION_HELP =
  'answer only once the pdp has applied this policy revision (default: the last revision this login changed)';

/** `custos decide` and `custos explain`. */
export function registerDecisionCommands(program: Command, context: RemoteContext): void {
  program
    .command('decide')
    .description('ask for a decision on an event; prints the decision JSON, exit 0 when allowed and 1 when inhibited')
    .argument('<event>', 'the Event JSON file, or - for standard input')
    .option('--min-revision <n>', MIN_REVISION_HELP, parseRevision)
    .action((file: string, options: DecisionOptions) =>
      runAction(context, async () => {
        const api = await sessionApi(context);
        const decision = await ask(api, '/event', file, options, context);
        context.out(`${JSON.stringify(decision, null, 2)}\n`);
        const allowed = typeof decision === 'object' && decision !== null && (decision as { eventAllowed?: unknown }).eventAllowed === true;
        return allowed ? REMOTE_EXIT.ok : REMOTE_EXIT.refused;
      }),
    );

  program
    .command('explain')
    .description('explain the decision on an event without side effects, as a tree: policies, mechanisms, branches, values')
    .argument('<event>', 'the Event JSON file, or - for standard input')
    .option('--min-revision <n>', MIN_REVISION_HELP, parseRevision)
    .option('--json', 'print the raw answer of /event/explain')
    .action((file: string, options: DecisionOptions) =>
      runAction(context, async () => {
        const api = await sessionApi(context);
        const answer = await ask(api, '/event/explain', file, options, context);
        context.out(options.json ? `${JSON.stringify(answer, null, 2)}\n` : `${explainTree(answer).join('\n')}\n`);
        return REMOTE_EXIT.ok;
      }),
    );
}
