import type { Response } from 'express';
import { Type } from '@sinclair/typebox';
import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { jsonResponse, principalOf, problemResponse, problems } from '@custos/service-kit';
import { pdpRoute, type PdpRouteDeps } from './context';
import { EXECUTION_STATES, type ExecutionState, type PgExecutionStore, type StoredExecution } from '../pxp/execution-store';

export interface ExecutionRouteDeps {
  store: PgExecutionStore;
  /** Called after a retry, so the execute is delivered now rather than at the next poll. */
  wake: () => void;
}

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** An execute as the endpoints show it: what was to be sent and where it stands; times as ISO strings. */
function wireExecution(execution: StoredExecution): unknown {
  return {
    id: execution.id,
    decisionId: execution.decisionId,
    ...(execution.timerId === null ? {} : { timerId: execution.timerId }),
    policyId: execution.policyId,
    action: execution.action,
    parameters: execution.parameters,
    state: execution.state,
    attempts: execution.attempts,
    maxAttempts: execution.maxAttempts,
    lastError: execution.lastError,
    createdAt: new Date(execution.createdAt).toISOString(),
    updatedAt: new Date(execution.updatedAt).toISOString(),
  };
}

/** The solutions a principal may see; undefined for every solution. */
function solutionsOf(res: Response): string[] | undefined {
  const principal = principalOf(res);
  return principal.allSolutions ? undefined : [...principal.solutions];
}

const NOT_FOUND = problemResponse("no execute with this id in the token's solutions (`not_found`)");

/**
 * `GET /executions?state=failed&limit=100` (scope `component:read`): stored PXP executes of the token's solutions in
 * one state, oldest first. Failed ones are those whose attempts were spent or whose PXP was not registered.
 */
export const listExecutions = pdpRoute({
  method: 'get',
  path: '/executions',
  operationId: 'listExecutions',
  summary: 'Stored PXP executes in one state',
  description:
    "The asynchronous executes decisions required, as stored before their answers (docs/api.md, \"Executes\"), of the token's solutions, oldest first. " +
    '`failed`: attempts spent or no PXP registered; retry them with `POST /executions/{id}/retry`.',
  scope: SCOPES.componentRead,
  query: {
    state: {
      schema: Type.Unsafe<ExecutionState>({ enum: [...EXECUTION_STATES], default: 'failed' }),
      invalid: (text: string) =>
        problems.badRequest(ERROR_CODES.invalidRequest, `\`state\` must be one of ${EXECUTION_STATES.map((s) => `\`${s}\``).join(', ')}, got \`${text.slice(0, 40)}\``, [
          { path: 'query.state', message: `must be one of ${EXECUTION_STATES.join(', ')}` },
        ]),
    },
    limit: {
      schema: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
      // Digits only: `1e3`, ` 5` and `0x10` are not limits.
      normalize: (text: string) => (/^\d{1,4}$/.test(text) ? Number(text) : text),
      invalid: (text: string) =>
        problems.badRequest(ERROR_CODES.invalidRequest, `\`limit\` must be an integer from 1 to ${MAX_LIMIT}, got \`${text.slice(0, 40)}\``, [
          { path: 'query.limit', message: `must be an integer from 1 to ${MAX_LIMIT}` },
        ]),
    },
  },
  responses: {
    200: jsonResponse('the executes', {
      type: 'object',
      required: ['executions'],
      properties: { executions: { type: 'array', items: { $ref: '#/components/schemas/Execution' } } },
    }),
    400: problemResponse('`state` or `limit` out of range (`invalid_request`, with the query path)'),
    401: problemResponse('missing or invalid bearer token'),
    403: problemResponse('the token lacks `component:read` (`insufficient_scope`)'),
  },
  handler: async (_req, res, { deps, query }) => {
    const executions = await storeOf(deps).store.list(query.state ?? 'failed', solutionsOf(res), query.limit ?? DEFAULT_LIMIT);
    res.json({ executions: executions.map(wireExecution) });
  },
});

/**
 * `POST /executions/{id}/retry` (scope `component:write`): a failed or refused execute becomes pending again with
 * fresh attempts (202 with the execute). 404 when there is none of the token's solutions with this id, 409 when it
 * is pending or done.
 */
export const retryExecution = pdpRoute({
  method: 'post',
  path: '/executions/{id}/retry',
  operationId: 'retryExecution',
  summary: 'Deliver a failed or refused execute again',
  description: 'The execute becomes pending with fresh attempts and is delivered at once, with the same `Idempotency-Key`.',
  scope: SCOPES.componentWrite,
  params: {
    id: {
      schema: Type.String({ pattern: UUID, description: 'a lower-case UUID' }),
      invalid: (id: string) => problems.badRequest(ERROR_CODES.invalidId, `\`${id.slice(0, 64)}\` is not an execution id; expected a lower-case UUID`),
    },
  },
  responses: {
    202: jsonResponse('the execute, pending again', { $ref: '#/components/schemas/Execution' }),
    400: problemResponse('the id is not a UUID (`invalid_id`)'),
    401: problemResponse('missing or invalid bearer token'),
    403: problemResponse('the token lacks `component:write` (`insufficient_scope`)'),
    404: NOT_FOUND,
    409: problemResponse('the execute is pending or done (`conflict`)'),
  },
  handler: async (_req, res, { deps, params }) => {
    const { id } = params;
    const executions = storeOf(deps);
    const found = await executions.store.get(id);
    // A foreign solution's execute looks missing: its id tells nothing about the solution.
    if (found === undefined || !principalOf(res).mayAccess(found.solution)) throw problems.notFound(`no execution \`${id}\``);
    const retried = await executions.store.retry(id, Date.now());
    if (retried === undefined) throw problems.conflict(`execution \`${id}\` is ${found.state}; only failed and refused executes are retried`);
    executions.wake();
    res.status(202).json(wireExecution(retried));
  },
});

/** The executions part of the pdp; app.ts mounts these routes only when there is one. */
function storeOf(deps: PdpRouteDeps): NonNullable<PdpRouteDeps['executions']> {
  if (!deps.executions) throw new Error('the /executions routes are mounted without an execution store');
  return deps.executions;
}
