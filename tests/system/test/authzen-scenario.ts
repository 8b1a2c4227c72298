import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AuthZenContext, AuthZenEntity } from '@custos/contracts';
import { repoRoot } from '@custos/test-kit';

/**
 * The document-sharing app of the AuthZEN interoperability scenario: its policies (examples/authzen/policies),
 * the people and links it knows, and the decisions an AuthZEN PEP must get, written down by hand from the rules
 * in examples/authzen/README.md, never taken from an answer.
 */

export const SOLUTION = 'docshare';

/** The policies as a reader deploys them. */
export function scenarioPolicies(): string[] {
  const dir = path.join(repoRoot(), 'examples', 'authzen', 'policies');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.xml'))
    .sort()
    .map((file) => readFileSync(path.join(dir, file), 'utf8'));
}

/** The gateway's clock in the context (seconds since 1970): Monday 23 November 2026, 09:00 UTC. */
export const NOW = 1_795_424_400;

/** A document as the PEP loads it from its store, with its sharing list. */
export function document(id: string, people: { owner: string; viewers?: string[]; editors?: string[]; reviewers?: string[] }): AuthZenEntity {
  return {
    type: 'document',
    id,
    properties: { title: 'Quarterly plan', owner: people.owner, viewers: people.viewers ?? [], editors: people.editors ?? [], reviewers: people.reviewers ?? [] },
  };
}

/** The one document of the decision table. */
export const PLAN = document('plan', { owner: 'olivia', viewers: ['victor'], editors: ['edith'], reviewers: ['rita'] });

export const user = (id: string): AuthZenEntity => ({ type: 'user', id });

/** A shared link is the subject when someone opens one: it names its document and its expiry. */
export const link = (id: string, documentId: string, expiresAt: number): AuthZenEntity => ({
  type: 'link',
  id,
  properties: { document: documentId, expires_at: expiresAt },
});

export interface ExpectedDecision {
  why: string;
  subject: AuthZenEntity;
  action: string;
  context?: AuthZenContext;
  decision: boolean;
  /** `method resource-path` of each modifier the decision carries, in order; none when absent. */
  modifiers?: string[];
}

const at = { time: NOW };

/** Single evaluations on PLAN (none of these actions is counted in the history, so their order is free). */
export const EXPECTED: ExpectedDecision[] = [
  { why: 'the owner reads', subject: user('olivia'), action: 'read', context: at, decision: true },
  { why: 'the owner edits', subject: user('olivia'), action: 'edit', decision: true },
  { why: 'the owner deletes', subject: user('olivia'), action: 'delete', decision: true },
  { why: 'the owner shares', subject: user('olivia'), action: 'share', decision: true },
  { why: 'a viewer reads', subject: user('victor'), action: 'read', context: at, decision: true },
  { why: 'a viewer does not edit', subject: user('victor'), action: 'edit', decision: false },
  { why: 'a viewer does not delete', subject: user('victor'), action: 'delete', decision: false },
  { why: 'an editor reads', subject: user('edith'), action: 'read', decision: true },
  { why: 'an editor edits', subject: user('edith'), action: 'edit', decision: true },
  { why: 'an editor does not delete', subject: user('edith'), action: 'delete', decision: false },
  { why: 'an editor does not share', subject: user('edith'), action: 'share', decision: false },
  { why: 'a reviewer reads with the title masked', subject: user('rita'), action: 'read', decision: true, modifiers: ['password $.properties.title'] },
  { why: 'a reviewer does not edit', subject: user('rita'), action: 'edit', decision: false },
  { why: 'a stranger does not read', subject: user('mallory'), action: 'read', context: at, decision: false },
  { why: 'a stranger does not delete', subject: user('mallory'), action: 'delete', decision: false },
  { why: 'a link opens its document before it expires', subject: link('l-open', 'plan', NOW + 3600), action: 'read', context: at, decision: true },
  { why: 'a link does not open after it expired', subject: link('l-open', 'plan', NOW + 3600), action: 'read', context: { time: NOW + 7200 }, decision: false },
  { why: 'a link does not open in the second it expires', subject: link('l-edge', 'plan', NOW), action: 'read', context: at, decision: false },
  { why: 'a link does not open without the gateway’s time', subject: link('l-open', 'plan', NOW + 3600), action: 'read', decision: false },
  { why: 'a link does not open another document', subject: link('l-other', 'budget', NOW + 3600), action: 'read', context: at, decision: false },
  { why: 'a link does not edit', subject: link('l-open', 'plan', NOW + 3600), action: 'edit', context: at, decision: false },
];

/**
 * A day of downloads for the batch-against-loop comparison, with viewer `v`, editor `e` and the same owner:
 * the owner downloads freely, viewers and editors three times in 24 hours (refused attempts count too).
 */
export function downloadDay(v: string, e: string): Array<{ subject: AuthZenEntity; action: string; resource: AuthZenEntity; allowed: boolean; modifiers: number }> {
  const doc = document(`report-${v}`, { owner: 'olivia', viewers: [v], editors: [e], reviewers: ['rita'] });
  const step = (who: string, action: string, allowed: boolean, modifiers = 0) => ({ subject: user(who), action, resource: doc, allowed, modifiers });
  return [
    step(v, 'read', true),
    step(v, 'download', true),
    step(e, 'download', true),
    step(v, 'download', true),
    step(v, 'download', true), // v's third
    step(v, 'download', false), // v's fourth in 24 hours
    step(e, 'edit', true),
    step(v, 'edit', false),
    step(v, 'download', false), // the refused fourth counted too
    step(e, 'download', true),
    step(e, 'download', true), // e's third
    step(e, 'download', false),
    step('olivia', 'download', true),
    step('rita', 'read', true, 1),
    step('mallory', 'download', false),
    step('olivia', 'delete', true),
  ];
}
