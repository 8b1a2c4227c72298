import type { ElementNode } from '../ast/nodes';
import type { Slot } from './content-models';
import type { Report } from './pass';

/**
 * Matches the children of `parent` against an ordered list of slots and reports every child that belongs nowhere,
 * comes too late, or is one too many, and every slot left short.
 */
export function checkSequence(parent: ElementNode, slots: readonly Slot[], report: Report): void {
  const counts = slots.map(() => 0);
  const firstOfSlot: Array<ElementNode | undefined> = slots.map(() => undefined);
  let current = 0;
  for (const child of parent.children) {
    const ahead = findSlot(slots, child, current, slots.length);
    if (ahead >= 0) {
      current = ahead;
      counts[ahead]! += 1;
      firstOfSlot[ahead] ??= child;
      const slot = slots[ahead]!;
      if (counts[ahead] === slot.max + 1) {
        report('too_many_children', `\`${parent.name}\` takes ${atMost(slot)}, found more`, child.location);
      }
      continue;
    }
    const behind = findSlot(slots, child, 0, current);
    if (behind >= 0) {
      // Counted where it belongs, so a misplaced child is not also reported as missing.
      counts[behind]! += 1;
      const later = firstOfSlot[current]!;
      report(
        'misplaced_element',
        `element \`${child.name}\` must come before \`${later.name}\` in \`${parent.name}\``,
        child.location,
      );
    } else {
      report('misplaced_element', `element \`${child.name}\` is not allowed in \`${parent.name}\``, child.location);
    }
  }
  slots.forEach((slot, index) => {
    const count = counts[index]!;
    if (count < slot.min) {
      const needed = slot.min === slot.max ? `exactly ${quantity(slot.min, slot)}` : `at least ${quantity(slot.min, slot)}`;
      report('missing_element', `\`${parent.name}\` needs ${needed}, found ${count}`, parent.location);
    }
  });
}

function findSlot(slots: readonly Slot[], child: ElementNode, from: number, to: number): number {
  for (let index = from; index < to; index += 1) {
    if (slots[index]!.accepts(child)) return index;
  }
  return -1;
}

function atMost(slot: Slot): string {
  return slot.max === slot.min ? `exactly ${quantity(slot.max, slot)}` : `at most ${quantity(slot.max, slot)}`;
}

function quantity(count: number, slot: Slot): string {
  return count === 1 ? `one ${slot.label}` : `${count} ${slot.plural}`;
}
