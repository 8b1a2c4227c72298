import type { Command } from 'commander';
import { readDocuments } from './apply-documents';
import { runPlan } from './apply-run';
import { currentState } from './apply-state';
import type { RemoteContext } from './context';
import { solutionOfId } from './document-id';
import { REMOTE_EXIT, UsageFailure } from './failures';
import { computePlan, planSummary, stepLine, type DesiredDocument } from './plan';
import { runAction } from './run-action';
import { sessionApi } from './session-api';

interface ApplyOptions {
  solution?: string;
  prune?: boolean;
  yes?: boolean;
}

/**
 * The solutions apply may change: those named with `--solution`, which every document must belong to; without it,
 * the solutions of the documents themselves. Nothing of any other solution is ever touched.
 */
function scopeOf(documents: readonly DesiredDocument[], option: string | undefined, dir: string): Set<string> {
  if (option === undefined) {
    const solutions = new Set(documents.map((document) => solutionOfId(document.id) ?? ''));
    if (solutions.size === 0) throw new UsageFailure(`\`${dir}\` holds no policies or timers; name the solution to empty with --solution`);
    return solutions;
  }
  const solutions = new Set(option.split(',').map((name) => name.trim()).filter((name) => name !== ''));
  if (solutions.size === 0) throw new UsageFailure('--solution: name at least one solution');
  const outside = documents.filter((document) => !solutions.has(solutionOfId(document.id) ?? ''));
  if (outside.length > 0) {
    const list = outside.map((document) => `  ${document.file}: \`${document.id}\``).join('\n');
    throw new UsageFailure(`these documents are not of ${[...solutions].map((s) => `\`${s}\``).join(', ')}:\n${list}`);
  }
  return solutions;
}

async function apply(dir: string, options: ApplyOptions, context: RemoteContext): Promise<number> {
  const documents = await readDocuments(dir);
  const solutions = scopeOf(documents, options.solution, dir);
  const api = await sessionApi(context);
  const steps = computePlan({ desired: documents, current: await currentState(api, solutions, documents), solutions, prune: options.prune === true });
  const names = [...solutions].sort().join(', ');
  if (steps.length === 0) {
    context.out(`plan: nothing to do; the policies and timers of ${names} match ${dir}\n`);
    return REMOTE_EXIT.ok;
  }
  for (const step of steps) context.out(`${stepLine(step)}\n`);
  context.out(`${planSummary(steps)}\n`);
  if (!options.yes) {
    context.out('nothing changed; run again with --yes to carry out the plan\n');
    return REMOTE_EXIT.ok;
  }
  return runPlan(api, steps, context);
}

/** `custos apply <dir>`. */
export function registerApplyCommand(program: Command, context: RemoteContext): void {
  program
    .command('apply')
    .description(
      'make the policies and timers of a solution equal to the XML files of a directory: print the plan, and carry it out with --yes',
    )
    .argument('<dir>', 'directory of policy and timer XML files (*.xml, sub-directories included)')
    .option('--solution <names>', 'the solutions to manage, comma separated (default: those of the files); every file must belong to one')
    .option('--prune', 'remove the documents of those solutions that the directory does not name (without it they are only revoked)')
    .option('--yes', 'carry out the plan')
    .action((dir: string, options: ApplyOptions) => runAction(context, () => apply(dir, options, context)));
}
