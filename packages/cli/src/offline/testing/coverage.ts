import type { BranchOutline, MechanismExplanation } from '@custos/policy-engine';
import type { LoadedPolicy } from './load-policies';

export interface MissedBranch {
  file: string;
  line: number;
  column?: number;
  /** 0-based, as in explanations; printed from 1. */
  mechanism: number;
  event: string;
  /** `if`, `elseif 2`, `else`, `fall-through` */
  branch: string;
}

export interface PolicyCoverage {
  id: string;
  file: string;
  branches: number;
  reached: number;
  missed: MissedBranch[];
  /** Mechanisms whose conditions call `execute`: explanations answer such calls false, so their branch is not known. */
  unmeasured: Array<{ mechanism: number; event: string; line: number }>;
}

/**
 * A branch as a key: the same for the outline and for `MechanismExplanation.branch`. `none` is the fall-through
 * (no condition true, no `else`), except in the explanation of a mechanism that failed, which took no branch at all.
 */
function branchKey(branch: BranchOutline['branch'], failed = false): string | null {
  switch (branch.kind) {
    case 'if':
      return 'if';
    case 'elseif':
      return `elseif:${branch.index}`;
    case 'else':
      return 'else';
    case 'none':
      return failed ? null : 'fall-through';
  }
}

function branchLabel(branch: BranchOutline['branch']): string {
  if (branch.kind === 'none') return 'fall-through';
  return branch.kind === 'elseif' ? `elseif ${branch.index + 1}` : branch.kind;
}

/**
 * Mechanism branch coverage over every test run: which `if`/`elseif`/`else` of each policy, and the fall-through of
 * a mechanism without `else`, the explanation of some test's event reported as taken. Events of `history` are not counted; they set the scene.
 */
export class BranchCoverage {
  private readonly policies = new Map<string, LoadedPolicy>();
  private readonly reached = new Set<string>();
  private readonly unmeasured = new Set<string>();

  /** Records what one test's explanation reached; `policies` are the ones its test file decided with. */
  add(explanation: readonly MechanismExplanation[], policies: readonly LoadedPolicy[]): void {
    const byId = new Map(policies.map((loaded) => [loaded.policy.id, loaded]));
    for (const loaded of policies) this.policies.set(loaded.file, loaded);
    for (const mechanism of explanation) {
      const loaded = byId.get(mechanism.policyId);
      if (loaded === undefined) continue;
      if ((mechanism.conditionExecutions ?? []).length > 0) this.unmeasured.add(`${loaded.file}\0${mechanism.mechanism}`);
      const key = branchKey(mechanism.branch, mechanism.outcome === 'error');
      if (key !== null) this.reached.add(`${loaded.file}\0${mechanism.mechanism}\0${key}`);
    }
  }

  /** Every policy seen, by file. */
  report(): PolicyCoverage[] {
    return [...this.policies.values()]
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
      .map((loaded) => {
        const result: PolicyCoverage = { id: loaded.policy.id, file: loaded.file, branches: 0, reached: 0, missed: [], unmeasured: [] };
        for (const mechanism of loaded.outline?.mechanisms ?? []) {
          if (this.unmeasured.has(`${loaded.file}\0${mechanism.mechanism}`)) {
            result.unmeasured.push({ mechanism: mechanism.mechanism, event: mechanism.event, line: mechanism.line });
            continue;
          }
          for (const outline of mechanism.branches) {
            result.branches += 1;
            if (this.reached.has(`${loaded.file}\0${mechanism.mechanism}\0${branchKey(outline.branch) ?? ''}`)) {
              result.reached += 1;
              continue;
            }
            result.missed.push({
              file: loaded.file,
              line: outline.line,
              ...(outline.column === undefined ? {} : { column: outline.column }),
              mechanism: mechanism.mechanism,
              event: mechanism.event,
              branch: branchLabel(outline.branch),
            });
          }
        }
        return result;
      });
  }
}

/** The coverage report as text lines: a total, then each policy with the branches no test reached. */
export function formatCoverage(report: readonly PolicyCoverage[]): string[] {
  const branches = report.reduce((sum, policy) => sum + policy.branches, 0);
  const reached = report.reduce((sum, policy) => sum + policy.reached, 0);
  const lines = [`coverage: ${reached} of ${branches} branches reached`];
  for (const policy of report) {
    lines.push(`  ${policy.id} (${policy.file}): ${policy.reached}/${policy.branches}`);
    for (const missed of policy.missed) {
      const where = `${missed.file}:${missed.line}${missed.column === undefined ? '' : `:${missed.column}`}`;
      const what = missed.branch === 'fall-through' ? 'the fall-through (no condition true, no `else`)' : `\`${missed.branch}\``;
      lines.push(`    ${where}: mechanism ${missed.mechanism + 1} (\`${missed.event}\`): ${what} never reached`);
    }
    for (const mechanism of policy.unmeasured) {
      lines.push(
        `    ${policy.file}:${mechanism.line}: mechanism ${mechanism.mechanism + 1} (\`${mechanism.event}\`): not measured, a condition calls \`execute\`, which explanations never run`,
      );
    }
  }
  return lines;
}
