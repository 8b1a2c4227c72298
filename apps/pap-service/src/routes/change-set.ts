import { changeSetAnswerSchema, changeSetSchema, ERROR_CODES, HEADERS, MAX_CHANGE_SET_BYTES, MAX_CHANGE_SET_ITEMS, parseUrn, SCOPES, type ChangeSetItem, type ProblemError } from '@custos/contracts';
import { foreignSolution, HttpProblem, jsonResponse, principalOf, problems } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT, type DocumentKind } from '../documents/kind';
import { POLICY_KIND } from '../documents/policy-kind';
import { TIMER_KIND } from '../documents/timer-kind';
import { applyChangeSet, ChangeSetConflict, type StagedChange } from '../store/change-set';
import type { DocumentMetadata } from '../store/documents';
import { authorOf } from './author';
import { audited, revisionOf } from './audited';
import { papRoute, type RouteContext } from './context';
import { common, problem, REVISION_HEADER } from './responses';

const KINDS: Record<ChangeSetItem['kind'], DocumentKind<DocumentMetadata, unknown>> = {
  policy: POLICY_KIND as unknown as DocumentKind<DocumentMetadata, unknown>,
  timer: TIMER_KIND as unknown as DocumentKind<DocumentMetadata, unknown>,
};

/**
 * `POST /ws/changes` (JSON): policies and timers added, replaced, deployed, revoked and removed in one request.
 * Every item is checked before anything is stored; then all of them are applied in order in one transaction, and
 * what they do to the deployed set is ONE revision, so every pdp switches to all of it at once. Any error changes
 * nothing.
 */
export const applyChanges = papRoute({
  method: 'post',
  path: '/ws/changes',
  summary: 'apply a change set',
  description:
    `Applies up to ${MAX_CHANGE_SET_ITEMS} changes of policies and timers (\`add\`, \`replace\`, \`deploy\`, \`revoke\`, \`remove\`) in ` +
    'order, as one transaction: every item is validated first (the XML as the single add and replace do), then all are ' +
    'applied and what they do to the deployed set takes one revision, which every pdp switches to at once. On any ' +
    'error nothing changes; `errors[].path` locates the item (`changes[2].xml`, with line and column for XML). ' +
    'Every op but `add` needs the document to exist at that point of the set (`add`: not to exist); `deploy` of a ' +
    'deployed and `revoke` of an undeployed document change nothing. Scope `policy:write`, and the token must cover the solution of every item.',
  scope: SCOPES.policyWrite,
  body: {
    media: 'json',
    limit: MAX_CHANGE_SET_BYTES,
    schema: changeSetSchema,
    description: `\`{changes: [{op, kind, id?, xml?}]}\`, 1 to ${MAX_CHANGE_SET_ITEMS} items, at most 16 MiB in all`,
  },
  responses: {
    200: jsonResponse('the revision after the change set and whether the deployed set changed', changeSetAnswerSchema, REVISION_HEADER),
    400: problem('`invalid_request` (an item lacks its `id` or `xml`, or has one it must not) or `invalid_policy`; `errors[].path` names each item'),
    404: problem('`not_found`: an item names a document that does not exist (at that point of the set); `errors[0].path` names it'),
    409: problem('`conflict`: an `add` of an id that exists; `errors[0].path` names it'),
    413: problem('body over 16 MiB'),
    415: problem('not `application/json`'),
    ...common,
  },
  handler: async (_req, res, { deps, body }) => {
    const principal = principalOf(res);
    const staged: StagedChange[] = [];
    const errors: ProblemError[] = [];
    let documentRefused = false;
    for (const [index, item] of body.changes.entries()) {
      const outcome = stage(item, `changes[${index}]`, deps);
      if ('errors' in outcome) {
        errors.push(...outcome.errors);
        documentRefused ||= outcome.documentRefused;
        continue;
      }
      // Before anything of another solution is confirmed to exist, as on the single routes.
      if (!principal.mayAccess(outcome.solution)) throw foreignSolution(SCOPES.policyWrite);
      staged.push(outcome.change);
    }
    if (errors.length > 0) {
      const code = documentRefused ? ERROR_CODES.invalidPolicy : ERROR_CODES.invalidRequest;
      throw problems.badRequest(code, `the change set is not valid: ${errors.length} problem${errors.length === 1 ? '' : 's'}; nothing was changed`, errors);
    }
    const targets = staged.map((item) => ('record' in item ? item.record.id : item.id)).join(' ');
    const record = audited(deps, res, (done: { changed: boolean; revision: number }) => ({ target: targets, revision: revisionOf(done) }));
    const outcome = await applyChangeSet(deps.pool, deps.onDeployedSetChange, staged, authorOf(res), record).catch((error: unknown) => {
      if (!(error instanceof ChangeSetConflict)) throw error;
      const code = error.status === 404 ? ERROR_CODES.notFound : ERROR_CODES.conflict;
      throw new HttpProblem(error.status, code, `${error.message}; nothing was changed`, [{ message: error.message, path: `changes[${error.index}]` }]);
    });
    res.setHeader(HEADERS.policyRevision, String(outcome.revision));
    res.status(200).json(outcome);
  },
});

/** An item ready to apply, or its problems; `documentRefused` when its XML is what was refused (`invalid_policy`). */
type Staging = { change: StagedChange; solution: string } | { errors: ProblemError[]; documentRefused: boolean };

const malformed = (message: string, path: string): Staging => ({ errors: [{ message, path }], documentRefused: false });

/** One item checked without touching the database: its XML read completely, its id well formed and of its kind. */
function stage(item: ChangeSetItem, path: string, deps: RouteContext): Staging {
  const kind = KINDS[item.kind];
  const store = deps.storeOf(kind);
  if (item.op === 'add' || item.op === 'replace') {
    if (item.xml === undefined) return malformed(`\`${item.op}\` needs the ${item.kind} in \`xml\``, `${path}.xml`);
    if (Buffer.byteLength(item.xml) > DOCUMENT_BODY_LIMIT) return malformed(`the ${item.kind} exceeds ${DOCUMENT_BODY_LIMIT} bytes`, `${path}.xml`);
    let record;
    try {
      record = kind.validate(item.xml);
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      const located = (error.errors ?? [{ message: error.detail }]).map((problem) => ({ ...problem, path: `${path}.xml` }));
      return { errors: located, documentRefused: true };
    }
    if (item.id !== undefined && item.id !== record.id) {
      return { errors: [{ message: `the ${item.kind} id \`${record.id}\` in \`xml\` differs from \`${item.id}\``, path: `${path}.id` }], documentRefused: true };
    }
    return { change: { op: item.op, store, record }, solution: record.solution };
  }
  if (item.xml !== undefined) return malformed(`\`${item.op}\` takes no \`xml\``, `${path}.xml`);
  if (item.id === undefined) return malformed(`\`${item.op}\` needs the ${item.kind} \`id\``, `${path}.id`);
  const parsed = parseUrn(item.kind, item.id);
  if (!parsed) return malformed(`\`${item.id}\` is not a ${item.kind} id; expected \`urn:${item.kind}:<solution>:<name>\``, `${path}.id`);
  return { change: { op: item.op, store, id: item.id }, solution: parsed.solution };
}
