import { Type, type Static } from '@sinclair/typebox';
import { oneOfValues } from './schema-kit';

/** A change set (pap `POST /ws/changes`, and `custos apply`): several changes of policies and timers as one revision. */

export const MAX_CHANGE_SET_ITEMS = 200;
/** The whole JSON body; each document within it is bound by the 5 MiB of a single add as well. */
export const MAX_CHANGE_SET_BYTES = 16 * 1024 * 1024;

export const CHANGE_OPS = ['add', 'replace', 'deploy', 'revoke', 'remove'] as const;
export type ChangeOp = (typeof CHANGE_OPS)[number];

export const changeSetItemSchema = Type.Object(
  {
    op: oneOfValues(CHANGE_OPS),
    kind: oneOfValues(['policy', 'timer']),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'the document URN: required by deploy, revoke and remove; with add and replace it must be the id in `xml`' })),
    xml: Type.Optional(Type.String({ minLength: 1, description: 'the document: required by add and replace, refused with the others' })),
  },
  { additionalProperties: false },
);
export type ChangeSetItem = Static<typeof changeSetItemSchema>;

export const changeSetSchema = Type.Object(
  { changes: Type.Array(changeSetItemSchema, { minItems: 1, maxItems: MAX_CHANGE_SET_ITEMS }) },
  { additionalProperties: false },
);
export type ChangeSet = Static<typeof changeSetSchema>;

/** The answer to a change set that was applied (also in `Policy-Revision`). */
export const changeSetAnswerSchema = Type.Object({
  revision: Type.Integer({ description: 'the revision of the deployed set after the change set' }),
  changed: Type.Boolean({ description: 'whether the deployed set changed (then `revision` is the one new revision all of it took)' }),
});
export type ChangeSetAnswer = Static<typeof changeSetAnswerSchema>;
