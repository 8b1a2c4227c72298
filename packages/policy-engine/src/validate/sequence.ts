import type { ElementNode } from '../ast/nodes';
import type { Slot } from './content-models';
import type { Report } from './pass';

/**
 * Matches the children of `parent` against an ordered list of slots and reports every child that belongs nowhere,
 * comes too late, or is one too many, and every slot left short.
 */
export function checkSequence(parent: ElementNode, slots: readonly Slot[], report: Report): void {
  const states: SlotState[] = slots.map((slot, index) => ({ slot, index, count: 0, first: undefined }));
  // The slot of the last child that was in order; later children may not belong to an earlier slot.
  let current: SlotState | undefined;
  for (const child of parent.children) {
    const ahead = findSlot(states, child, current?.index ?? 0, states.length);
    if (ahead !== undefined) {
      current = ahead;
      ahead.count += 1;
      ahead.first ??= child;
      if (ahead.count === ahead.slot.max + 1) {
        report('too_many_children', `\`${parent.name}\` takes ${atMost(ahead.slot)}, found more`, child.location);
      }
      continue;
    }
    const behind = findSlot(states, child, 0, current?.index ?? 0);
    // An earlier slot exists only once a child was in order, and that child is its slot's first.
    const later = current?.first;
    if (behind !== undefined && later !== undefined) {
      // Counted where it belongs, so a misplaced child is not also reported as missing.
      behind.count += 1;
      report(
        'misplaced_element',
        `element \`${child.name}\` must come before \`${later.name}\` in \`${parent.name}\``,
        child.location,
      );
    } else {
      report('misplaced_element', `element \`${child.name}\` is not allowed in \`${parent.name}\``, child.location);
    }
  }
  for (const { slot, count } of states) {
    if (count < slot.min) {
      const needed = slot.min === slot.max ? `exactly ${quantity(slot.min, slot)}` : `at least ${quantity(slot.min, slot)}`;
      report('missing_element', `\`${parent.name}\` needs ${needed}, found ${count}`, parent.location);
    }
  }
}

interface SlotState {
  readonly slot: Slot;
  readonly index: number;
  count: number;
  first: ElementNode | undefined;
}

function findSlot(states: readonly SlotState[], child: ElementNode, from: number, to: number): SlotState | undefined {
  for (let index = from; index < to; index += 1) {
    const state = states[index];
    if (state?.slot.accepts(child) === true) return state;
  }
  return undefined;
}

function atMost(slot: Slot): string {
  return slot.max === slot.min ? `exactly ${quantity(slot.max, slot)}` : `at most ${quantity(slot.max, slot)}`;
}

function quantity(count: number, slot: Slot): string {
  return count === 1 ? `one ${slot.label}` : `${count} ${slot.plural}`;
}
