import { ActionCounts, SEEN_EVENTS, type SeenEvent } from '../src/history/action-counts';

/** The per-action memory of counts (unit): moved between ids by the events it has seen, forgotten when it cannot be. */
const seen = (id: number, at: number, ...keys: string[]): SeenEvent => ({ id, at, keys: new Set(keys) });
const span = { from: 100, to: 200 };

describe('remembered counts of an action', () => {
  it('knows nothing before a batch has recorded, nor counts it was never told', () => {
    const counts = new ActionCounts();
    expect(counts.count(['k'], span, 1)).toBeUndefined();
    counts.catchUp([seen(3, 100, 'k')], 2);
    expect(counts.count(['k'], span, 3)).toBeUndefined();
  });

  it('moves a count forward and back by the events seen between, matching span and every key', () => {
    const counts = new ActionCounts();
    counts.catchUp([seen(3, 110, 'k'), seen(5, 120, 'k')], 2);
    counts.remember(['k'], span, 5, 2);
    // 6 matches; 7 lacks the key; 8 has both keys; 9 lies outside the span (times only grow).
    counts.catchUp([seen(6, 130, 'k'), seen(7, 140, 'x'), seen(8, 150, 'k', 'x'), seen(9, 200, 'k')], 5);
    expect(counts.count(['k'], span, 9)).toBe(4);
    expect(counts.count(['k'], span, 6)).toBe(3);
    expect(counts.count(['k'], span, 5)).toBe(2);
    expect(counts.count(['k'], span, 3)).toBe(1);
    expect(counts.count(['k', 'x'], span, 9)).toBeUndefined();
    counts.remember(['k', 'x'], span, 8, 1);
    expect(counts.count(['k', 'x'], span, 9)).toBe(1);
    // Ids after the newest seen are not known yet.
    expect(counts.count(['k'], span, 10)).toBeUndefined();
    expect(counts.last).toEqual({ id: 9, at: 200 });
  });

  it('does not move a count below the first event it saw (an event before it may be unseen)', () => {
    const counts = new ActionCounts();
    counts.catchUp([seen(10, 110, 'k'), seen(11, 120, 'k')], 9);
    counts.remember(['k'], span, 11, 7);
    expect(counts.count(['k'], span, 10)).toBe(6);
    // Up to 9: every event after 9 was seen, so this is still known; event 9 itself was not.
    expect(counts.count(['k'], span, 9)).toBe(5);
    expect(counts.count(['k'], span, 8)).toBeUndefined();
  });

  it('forgets every count when a batch could not hand over all events since the last one', () => {
    const counts = new ActionCounts();
    counts.catchUp([seen(1, 110, 'k')], 0);
    counts.remember(['k'], span, 1, 1);
    counts.catchUp([seen(50, 120, 'k'), seen(51, 130, 'k')], 49);
    expect(counts.count(['k'], span, 51)).toBeUndefined();
    counts.remember(['k'], span, 51, 9);
    expect(counts.count(['k'], span, 50)).toBe(8);
  });

  it('keeps a bounded tail: counts older than what it still holds are asked again', () => {
    const counts = new ActionCounts();
    counts.catchUp([seen(1, 110, 'k')], 0);
    counts.remember(['k'], span, 1, 1);
    counts.catchUp(
      Array.from({ length: SEEN_EVENTS }, (_, i) => seen(i + 2, 120, 'k')),
      1,
    );
    expect(counts.count(['k'], span, SEEN_EVENTS + 1)).toBeUndefined();
    counts.remember(['k'], span, SEEN_EVENTS + 1, SEEN_EVENTS + 1);
    expect(counts.count(['k'], span, SEEN_EVENTS)).toBe(SEEN_EVENTS);
  });

  it('takes batches that come back out of order, and starts over when one leaves a gap', () => {
    const counts = new ActionCounts();
    counts.catchUp([seen(1, 110, 'k')], 0);
    counts.remember(['k'], span, 1, 1);
    // Two batches sent after event 1: the later one (events 2-5) comes back first; the earlier (2-3) adds nothing.
    counts.catchUp([seen(2, 120, 'k'), seen(3, 120, 'x'), seen(4, 130, 'k'), seen(5, 140, 'k')], 1);
    counts.catchUp([seen(2, 120, 'k'), seen(3, 120, 'x')], 1);
    expect(counts.count(['k'], span, 5)).toBe(4);
    expect(counts.count(['k'], span, 3)).toBe(2);
    expect(counts.last).toEqual({ id: 5, at: 140 });
    // A batch that saw only its own events (sent before this replica knew any): event 6, by another replica, is
    // not among them, so nothing about 7-8 can be brought forward from 5.
    counts.catchUp([seen(7, 150, 'k'), seen(8, 160, 'k')], 6);
    expect(counts.count(['k'], span, 8)).toBeUndefined();
    expect(counts.last).toEqual({ id: 8, at: 160 });
  });
});
