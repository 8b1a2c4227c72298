import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import { contentModel } from './content-models';
import type { Report, ValidationPass } from './pass';
import { checkSequence } from './sequence';

/** Children, their number and order (policy-language.md §3, §5 and §6). */
export const structurePass: ValidationPass = {
  name: 'structure',
  run(policy, report) {
    walk(policy, (node) => {
      checkSequence(node, contentModel(node), report);
      if (node.name === 'then' || node.name === 'else') checkDecision(node, report);
    });
  },
};

/** `allow | inhibit | modify+`: one verdict, and `modify` already means allow. */
function checkDecision(decision: ElementNode, report: Report): void {
  const allows = decision.children.filter((child) => child.name === 'allow');
  const inhibits = decision.children.filter((child) => child.name === 'inhibit');
  const modifies = decision.children.filter((child) => child.name === 'modify');
  for (const extra of [...allows.slice(1), ...inhibits.slice(1)]) {
    report('conflicting_decision', `a decision takes at most one \`${extra.name}\``, extra.location);
  }
  const firstAllow = allows[0];
  const firstInhibit = inhibits[0];
  const firstModify = modifies[0];
  if (firstAllow !== undefined && firstInhibit !== undefined) {
    const later =
      decision.children.indexOf(firstAllow) < decision.children.indexOf(firstInhibit) ? firstInhibit : firstAllow;
    report('conflicting_decision', '`allow` and `inhibit` cannot be combined in one decision', later.location);
  }
  if (firstModify !== undefined) {
    for (const verdict of [firstAllow, firstInhibit]) {
      if (verdict === undefined) continue;
      const reason = verdict.name === 'allow' ? 'a decision with `modify` already allows' : 'a decision with `modify` allows';
      report('conflicting_decision', `\`${verdict.name}\` and \`modify\` cannot be combined in one decision (${reason})`, verdict.location);
    }
  }
}
