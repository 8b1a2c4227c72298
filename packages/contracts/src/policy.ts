import { Type, type Static } from '@sinclair/typebox';

const nullableText = () => Type.Union([Type.String(), Type.Null()]);
const instant = () => Type.String({ format: 'date-time' });

export const policyIdSchema = Type.Object({ identifier: Type.String({ examples: ['urn:policy:acme:mask-names'] }) });
export type PolicyId = Static<typeof policyIdSchema>;

/** A policy as `GET /ws/policy/{id}` shows it (api.md §4). */
export const policySchema = Type.Object({
  id: policyIdSchema,
  name: nullableText(),
  description: nullableText(),
  deployed: Type.Boolean(),
  xml: Type.String(),
  createdAt: instant(),
  updatedAt: instant(),
});
export type Policy = Static<typeof policySchema>;

/** `{"identifier": "urn:timer:<solution>:<name>"}`, as PolicyId is for policies. */
export const timerIdSchema = Type.Object({ identifier: Type.String({ examples: ['urn:timer:acme:nightly'] }) });
export type TimerId = Static<typeof timerIdSchema>;

/** A timer as `GET /ws/timer/{id}` shows it (policy-language.md §10; api.md §4 "Timers"). */
export const timerSchema = Type.Object({
  id: timerIdSchema,
  description: nullableText(),
  cron: Type.String({ description: 'quartz cron expression, seconds first, as written' }),
  deployed: Type.Boolean(),
  xml: Type.String(),
  createdAt: instant(),
  updatedAt: instant(),
});
export type TimerResource = Static<typeof timerSchema>;
