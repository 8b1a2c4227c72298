import { Type, type Static } from '@sinclair/typebox';

/**
 * The history of a policy or timer (pap `GET /ws/policy|timer/{id}/versions`): every text it was stored with, as a
 * numbered version. A replace and a restore add a version; nothing rewrites one.
 */

const versionFacts = {
  number: Type.Integer({ minimum: 1, description: 'the version number, 1 for the text the document was added with' }),
  clientId: Type.Union([Type.String(), Type.Null()], { description: 'the client id of the token that stored this text; null for versions from before history was kept' }),
  requestId: Type.Union([Type.String(), Type.Null()], { description: 'the `X-Request-Id` of the request that stored it; null for versions from before history was kept' }),
  createdAt: Type.String({ format: 'date-time', description: 'when it was stored' }),
};

export const documentVersionSchema = Type.Object({
  ...versionFacts,
  current: Type.Boolean({ description: 'the text stored now (the highest number)' }),
  deployed: Type.Boolean({ description: 'the text the pdps decide with: the current version of a deployed document' }),
});
export type DocumentVersion = Static<typeof documentVersionSchema>;

export const documentVersionsSchema = Type.Object({
  id: Type.Object({ identifier: Type.String() }),
  versions: Type.Array(documentVersionSchema, { description: 'oldest first' }),
});
export type DocumentVersions = Static<typeof documentVersionsSchema>;

/** One version with its text (`GET …/versions/{n}`). */
export const documentVersionTextSchema = Type.Object({ ...versionFacts, xml: Type.String({ description: 'the text as stored' }) });
export type DocumentVersionText = Static<typeof documentVersionTextSchema>;

/** The answer to `POST …/versions/{n}/restore` (the revision also in `Policy-Revision` when the deployed set changed). */
export const documentRestoreAnswerSchema = Type.Object({
  version: Type.Integer({ minimum: 1, description: 'the new version that carries the restored text' }),
  deployed: Type.Boolean({ description: 'whether the document is deployed after the restore' }),
  revision: Type.Integer({ description: 'the revision of the deployed set after the restore' }),
  changed: Type.Boolean({ description: 'whether the deployed set changed (then `revision` is the one new revision it took)' }),
});
export type DocumentRestoreAnswer = Static<typeof documentRestoreAnswerSchema>;
