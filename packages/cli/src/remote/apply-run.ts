import { MAX_CHANGE_SET_ITEMS, type ChangeSet } from '@custos/contracts';
import { revisionOf, type Api } from './api';
import type { RemoteContext } from './context';
import { REMOTE_EXIT, RefusedFailure, TransportFailure, UsageFailure } from './failures';
import { stepLine, type Step } from './plan';

/** The change set of a plan: its steps in order, each with the text of its file for add and replace. */
export function changeSetOf(steps: readonly Step[]): ChangeSet {
  return {
    changes: steps.map((step) => ({ op: step.action, kind: step.kind, id: step.id, ...(step.xml === undefined ? {} : { xml: step.xml }) })),
  };
}

/** `changes[3]` or `changes[3].xml`: an item of the change set, as pap's problems name it. */
const ITEM_PATH = /changes\[(\d+)\](?:\.\w+)?/g;

/**
 * pap's words with every item it names shown as the step it is, so the user sees which file or id to fix
 * (`changes[2].xml: …` becomes `add urn:policy:acme:x (x.xml): …`).
 */
function withSteps(lines: readonly string[], steps: readonly Step[]): string[] {
  return lines.map((line) =>
    line.replace(ITEM_PATH, (whole, index: string) => {
      const step = steps[Number(index)];
      return step === undefined ? whole : stepLine(step).replace(/\s+/g, ' ');
    }),
  );
}

/**
 * Carries out the plan as ONE change set (pap `POST /ws/changes`): pap checks all of it first and applies it in one
 * transaction as one revision, so every pdp switches to all of it at once, and any refusal changes nothing. There is
 * no half-applied state to report: either every step is done or none.
 */
export async function runPlan(api: Api, steps: readonly Step[], context: RemoteContext): Promise<number> {
  if (steps.length > MAX_CHANGE_SET_ITEMS) {
    throw new UsageFailure(`the plan has ${steps.length} steps, more than the ${MAX_CHANGE_SET_ITEMS} of one change set; nothing changed; apply the directory in parts`);
  }
  try {
    const answer = await api.pap('POST', '/ws/changes', { body: JSON.stringify(changeSetOf(steps)), contentType: 'application/json' });
    const revision = revisionOf(answer);
    context.out(`applied ${steps.length} step${steps.length === 1 ? '' : 's'} as one change${revision === undefined ? '' : ` (policy revision ${revision})`}\n`);
    return REMOTE_EXIT.ok;
  } catch (error) {
    if (!(error instanceof RefusedFailure || error instanceof TransportFailure)) throw error;
    if (error instanceof TransportFailure) {
      // The answer is lost, not necessarily the change: pap applied all of it or none.
      context.err(`${error.message}\nthe plan was carried out entirely or not at all; run apply again to see what is left\n`);
      return error.exitCode;
    }
    context.err('the plan was refused; nothing changed\n');
    for (const line of withSteps(error.lines, steps)) context.err(`  ${line}\n`);
    return error.exitCode;
  }
}
