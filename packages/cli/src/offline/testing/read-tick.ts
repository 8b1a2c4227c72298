import { readInstant } from './instant';
import { readExpectation } from './read-expectation';
import type { Shape } from './shape';
import type { TickCase, TickExpectation } from './test-file';
import type { PathSegment, Position } from './yaml-source';

const TIMER_URN = /^urn:timer:[a-z0-9._-]+:[A-Za-z0-9._-]+$/;

/** `tick: { timer: urn:timer:<solution>:<name>, at: <ms or ISO 8601> }`: a timer of the file's policy paths, at one instant. */
export function readTick(value: unknown, at: readonly PathSegment[], shape: Shape, locate: (path: readonly PathSegment[]) => Position | undefined): TickCase['tick'] | undefined {
  const record = shape.record(value, at, { required: ['timer', 'at'] });
  if (record === undefined) return undefined;
  const timer = shape.string(record.timer, [...at, 'timer'], { pattern: TIMER_URN, hint: 'is not a timer; expected `urn:timer:<solution>:<name>`' });
  let instant: number | undefined;
  if (typeof record.at === 'number' && Number.isSafeInteger(record.at) && record.at >= 0) instant = record.at;
  else if (typeof record.at === 'string' && readInstant(record.at) !== null) instant = readInstant(record.at) ?? undefined;
  else shape.fail([...at, 'at'], 'must be milliseconds since the epoch or an ISO 8601 time with a date (`2026-11-28T02:00:00Z`)');
  if (timer === undefined || instant === undefined) return undefined;
  const where = locate([...at, 'timer']);
  return { timer, at: instant, ...(where === undefined ? {} : where) };
}

/**
 * The `expect` of a tick: `fires` (default true) and, when it fires, what an event's `expect` holds, compared with
 * the decision on each event the timer fires.
 */
export function readTickExpectation(value: unknown, at: readonly PathSegment[], shape: Shape): TickExpectation | undefined {
  const fires = typeof value === 'object' && value !== null && 'fires' in value ? shape.boolean((value as { fires: unknown }).fires, [...at, 'fires']) : true;
  if (fires === undefined) return undefined;
  if (fires) {
    const each = readExpectation(value, at, shape, ['fires']);
    return each === undefined ? undefined : { fires, each };
  }
  const record = shape.record(value, at, { required: ['fires'] });
  return record === undefined ? undefined : { fires };
}
