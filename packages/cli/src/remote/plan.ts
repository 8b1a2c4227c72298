import type { DocumentKind } from './document-id';
import { solutionOfId } from './document-id';

/** A policy or timer as a file in the directory says it should be. */
export interface DesiredDocument {
  id: string;
  kind: DocumentKind;
  file: string;
  xml: string;
}

/** A policy or timer the pap has; `xml` is known for those the directory also names. */
export interface CurrentDocument {
  id: string;
  kind: DocumentKind;
  deployed: boolean;
  xml?: string;
}

export const STEP_ACTIONS = ['add', 'replace', 'deploy', 'revoke', 'remove'] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

export interface Step {
  action: StepAction;
  kind: DocumentKind;
  id: string;
  /** For add and replace: the file and the text to send. */
  file?: string;
  xml?: string;
}

export interface PlanInput {
  desired: readonly DesiredDocument[];
  current: readonly CurrentDocument[];
  /** Only documents of these solutions are revoked or removed. */
  solutions: ReadonlySet<string>;
  /** Remove what the directory does not name, instead of only revoking it. */
  prune: boolean;
}

const byKindAndId = (a: Step, b: Step) => (a.kind === b.kind ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.kind === 'policy' ? -1 : 1);

/**
 * The steps that make the deployed set of the solutions in scope equal to the directory: every document of the
 * directory stored with exactly its text and deployed; every other document of those solutions revoked, or removed
 * with `prune`. Steps run in the order add, replace, deploy, revoke, remove, so new policies are in place before old
 * ones go. A document already as wanted gives no step, which makes a second apply empty.
 */
export function computePlan({ desired, current, solutions, prune }: PlanInput): Step[] {
  const existing = new Map(current.map((document) => [document.id, document]));
  const steps: Step[] = [];
  for (const document of desired) {
    const { id, kind, file, xml } = document;
    const stored = existing.get(id);
    if (stored === undefined) {
      steps.push({ action: 'add', kind, id, file, xml }, { action: 'deploy', kind, id });
      continue;
    }
    // Replacing a deployed document re-deploys it in the same step (api.md §4); an undeployed one needs a deploy.
    if (stored.xml !== xml) steps.push({ action: 'replace', kind, id, file, xml });
    if (!stored.deployed) steps.push({ action: 'deploy', kind, id });
  }
  const wanted = new Set(desired.map((document) => document.id));
  for (const document of current) {
    const solution = solutionOfId(document.id);
    if (wanted.has(document.id) || solution === undefined || !solutions.has(solution)) continue;
    // A remove revokes first, so a pruned document needs only that one step.
    if (prune) steps.push({ action: 'remove', kind: document.kind, id: document.id });
    else if (document.deployed) steps.push({ action: 'revoke', kind: document.kind, id: document.id });
  }
  return STEP_ACTIONS.flatMap((action) => steps.filter((step) => step.action === action).sort(byKindAndId));
}

/** `add     urn:policy:acme:x  (policies/x.xml)`: one line per step. */
export function stepLine(step: Step): string {
  return `${step.action.padEnd(8)}${step.id}${step.file === undefined ? '' : `  (${step.file})`}`;
}

export function planSummary(steps: readonly Step[]): string {
  const counts = STEP_ACTIONS.map((action) => `${steps.filter((step) => step.action === action).length} to ${action}`);
  return `plan: ${counts.join(', ')}`;
}
