import type { ReplicaView } from '../src/web/logic/api';
import { agoOf, everyReplicaHas, replicasBehind } from '../src/web/logic/replicas';
import { EXPIRY_MARGIN_MS, remainingMs, sessionOf } from '../src/web/logic/session';

test('a session ends the margin before its token does, and reads its scopes', () => {
  const session = sessionOf('admin', { accessToken: 't', expiresIn: 3600, scope: 'policy:read  policy:write' }, 1_000);
  expect(session).toEqual({ clientId: 'admin', token: 't', scopes: ['policy:read', 'policy:write'], expiresAt: 1_000 + 3_600_000 - EXPIRY_MARGIN_MS });
  expect(remainingMs(session, session.expiresAt - 10)).toBe(10);
  expect(remainingMs(session, session.expiresAt + 10)).toBe(0);
});

const replica = (name: string, revision: number | null, stale = false): ReplicaView => ({
  replica: name,
  ready: revision !== null,
  revision,
  lag: null,
  lagMs: null,
  natsConnected: true,
  lastSeenAt: '2026-01-01T00:00:00.000Z',
  stale,
});

test('a revision has reached every replica when each live one is at it or beyond', () => {
  expect(everyReplicaHas([replica('a', 3), replica('b', 4)], 3)).toBe(true);
  expect(everyReplicaHas([replica('a', 3), replica('b', 2)], 3)).toBe(false);
  expect(replicasBehind([replica('a', 3), replica('b', 2), replica('c', null)], 3)).toEqual(['b', 'c']);
  // A replica that went quiet does not hold the answer back, and no replica at all is not "every".
  expect(everyReplicaHas([replica('a', 3), replica('gone', 1, true)], 3)).toBe(true);
  expect(everyReplicaHas([], 3)).toBe(false);
});

test('when a replica was last seen, in words', () => {
  const at = '2026-01-01T12:00:00.000Z';
  const t = Date.parse(at);
  expect(agoOf(at, t + 2_000)).toBe('just now');
  expect(agoOf(at, t - 3_000)).toBe('just now');
  expect(agoOf(at, t + 42_900)).toBe('42 s ago');
  expect(agoOf(at, t + 3 * 60_000 + 59_000)).toBe('3 min ago');
  expect(agoOf(at, t + 65 * 60_000)).toBe('1 h 5 min ago');
  expect(agoOf(at, t + 120 * 60_000)).toBe('2 h ago');
  expect(agoOf('not a time', t)).toBe('just now');
});
