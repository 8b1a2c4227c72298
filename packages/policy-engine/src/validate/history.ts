import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import type { ValidationPass } from './pass';

/**
 * Rules of the history elements (policy-language.md §6) that span several elements: FIRST/LAST belongs to an
 * `eventOccurrence` in `start`/`end` and only there; a `start`/`end` names a time or an occurrence; filters by path
 * are for `eventOccurrence`; `continuousOccurrence` needs a span with a start and min ≤ max.
 */
export const historyPass: ValidationPass = {
  name: 'history',
  run(policy, report) {
    walk(policy, (node, parent) => {
      if (node.name === 'eventOccurrence' && parent !== null) {
        const inBound = parent.name === 'start' || parent.name === 'end';
        const mode = node.attributes.get('mode');
        if (inBound && mode === undefined) {
          report('missing_attribute', `\`eventOccurrence\` in \`${parent.name}\` needs attribute \`mode\` (\`FIRST\` or \`LAST\`)`, node.location);
        } else if (!inBound && mode !== undefined) {
          report('invalid_attribute', `attribute \`mode\` of \`eventOccurrence\` is only meaningful in \`start\` or \`end\``, mode.location);
        }
      } else if (node.name === 'start' || node.name === 'end') {
        const hasOccurrence = node.children.some((child) => child.name === 'eventOccurrence');
        if (!node.attributes.has('time') && !hasOccurrence) {
          report('missing_attribute', `\`${node.name}\` needs attribute \`time\` or an \`eventOccurrence\` child`, node.location);
        }
      } else if (node.info.family === 'parameter') {
        const path = node.attributes.get('jsonPathQuery');
        if (path !== undefined && parent?.name !== 'eventOccurrence') {
          report(
            'invalid_attribute',
            `attribute \`jsonPathQuery\` of \`${node.name}\`: is only meaningful inside \`eventOccurrence\``,
            path.location,
          );
        }
      } else if (node.name === 'continuousOccurrence') {
        checkContinuous(node, report);
      }
    });
  },
};

function checkContinuous(node: ElementNode, report: Parameters<ValidationPass['run']>[1]): void {
  const minimum = node.attributes.get('minOccurrences');
  const maximum = node.attributes.get('maxOccurrences');
  const low = minimum === undefined ? 1 : Number(minimum.value.trim());
  const high = maximum === undefined ? Infinity : Number(maximum.value.trim());
  if (Number.isInteger(low) && Number.isInteger(high) && low > high && maximum !== undefined) {
    report('invalid_attribute', `\`maxOccurrences\` ${high} is less than \`minOccurrences\` ${low}`, maximum.location);
  }
  const when = node.children.find((child) => child.name === 'when');
  if (when === undefined) return;
  const fixedTime = when.attributes.get('fixedTime')?.value;
  const hasStart = when.children.some((child) => child.name === 'start');
  if (fixedTime === 'always' || (fixedTime === undefined && !hasStart)) {
    report(
      'unbounded_span',
      '`continuousOccurrence` needs a span with a start: windows cannot be counted from the beginning of time',
      when.location,
    );
  }
}
