import type { AuditPage, AuditRecord } from '@custos/contracts';
import type { Command } from 'commander';
import type { RemoteContext } from './context';
import { REMOTE_EXIT } from './failures';
import { runAction } from './run-action';
import { sessionApi } from './session-api';

interface AuditOptions {
  who?: string;
  operation?: string;
  target?: string;
  outcome?: string;
  since?: string;
  until?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
}

const FILTERS = ['who', 'operation', 'target', 'outcome', 'since', 'until', 'limit', 'cursor'] as const;

/** One record on one line: when, outcome and status, who, what (of which target, at which revision), from where, why. */
function recordLine(record: AuditRecord): string {
  const what = `${record.operation}${record.target === null ? '' : ` ${record.target}`}${record.revision === null ? '' : ` @${record.revision}`}`;
  const from = record.address === null ? '' : ` from ${record.address}`;
  const why = record.reason === null ? '' : ` — ${record.reason}`;
  return `${record.at}  ${record.outcome} ${record.status}  ${record.who ?? '(unauthenticated)'}  ${what}${from}  [${record.service} ${record.requestId ?? '-'}]${why}\n`;
}

/**
 * `custos audit`: a page of the audit trail of management (pap's and auth's changes and refused attempts), newest
 * first, with pap's filters; `--cursor` takes the `next` the page before printed.
 */
export function registerAuditCommands(program: Command, context: RemoteContext): void {
  program
    .command('audit')
    .description('the audit trail of management: who changed what, when, from where, and refused attempts (needs audit:read)')
    .option('--who <client-id>', 'records of this client')
    .option('--operation <name>', 'an operation (policy.deploy) or a family (policy)')
    .option('--target <id>', 'records of this document, component, solution or client')
    .option('--outcome <outcome>', 'accepted, refused or failed')
    .option('--since <time>', 'records at or after this RFC 3339 time')
    .option('--until <time>', 'records before this RFC 3339 time')
    .option('--limit <n>', 'records per page (default 50)')
    .option('--cursor <next>', 'the page after the one that printed this cursor')
    .option('--json', "print pap's answer as JSON")
    .action((options: AuditOptions) =>
      runAction(context, async () => {
        const query = new URLSearchParams();
        for (const name of FILTERS) {
          const value = options[name];
          if (value !== undefined) query.set(name, value);
        }
        const api = await sessionApi(context);
        const page = (await api.papJson('GET', `/ws/audit${query.size > 0 ? `?${query.toString()}` : ''}`)) as AuditPage;
        if (options.json === true) {
          context.out(`${JSON.stringify(page, null, 2)}\n`);
          return REMOTE_EXIT.ok;
        }
        if (page.records.length === 0) context.out('no audit records\n');
        for (const record of page.records) context.out(recordLine(record));
        if (page.incomplete.length > 0) context.err(`note: without the records of ${page.incomplete.join(', ')}: it could not be read\n`);
        if (page.next !== null) context.out(`more: --cursor ${page.next}\n`);
        return REMOTE_EXIT.ok;
      }),
    );
}
