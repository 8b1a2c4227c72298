import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import { excerpt } from '../diagnostics';
import { readUrn, urnForm, type UrnKind } from '../parse/urns';
import type { Report, ValidationPass } from './pass';

/** Where the language expects which URN (policy-language.md §2). */
const URN_ATTRIBUTES: ReadonlyArray<{ element: string; attribute: string; kind: UrnKind }> = [
  { element: 'policy', attribute: 'id', kind: 'policy' },
  { element: 'mechanism', attribute: 'event', kind: 'action' },
  { element: 'execute', attribute: 'action', kind: 'action' },
  { element: 'eventOccurrence', attribute: 'event', kind: 'action' },
  ...['string', 'number', 'boolean', 'object', 'list'].map((type) => ({ element: `pip:${type}`, attribute: 'method', kind: 'info' as const })),
];

export const identifiersPass: ValidationPass = {
  name: 'identifiers',
  run(policy, report) {
    walk(policy, (node) => {
      for (const { element, attribute, kind } of URN_ATTRIBUTES) {
        if (node.name === element) checkUrn(node, attribute, kind, report);
      }
    });
  },
};

function checkUrn(node: ElementNode, attributeName: string, kind: UrnKind, report: Report): void {
  const attribute = node.attributes.get(attributeName);
  if (attribute === undefined || readUrn(kind, attribute.value) !== null) return;
  report(
    'invalid_urn',
    `attribute \`${attributeName}\` of \`${node.name}\`: \`${excerpt(attribute.value, 80)}\` is not of the form \`${urnForm(kind)}\` (solution of \`[a-z0-9._-]\`, name of \`[A-Za-z0-9._-]\`)`,
    attribute.location,
  );
}
