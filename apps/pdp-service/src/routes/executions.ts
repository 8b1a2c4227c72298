import type { Request, RequestHandler, Response } from 'express';
import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { principalOf, problems, requireScope, type TokenVerifier } from '@custos/service-kit';
import { EXECUTION_STATES, type ExecutionState, type PgExecutionStore, type StoredExecution } from '../pxp/execution-store';

export interface ExecutionRouteDeps {
  verifier: TokenVerifier;
  store: PgExecutionStore;
  /** Called after a retry, so the execute is delivered now rather than at the next poll. */
  wake: () => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
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

function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw problems.badRequest(ERROR_CODES.invalidRequest, `query parameter \`${name}\` must be given once`, [{ path: `query.${name}`, message: 'must be given once' }]);
  return value;
}

function stateOf(req: Request): ExecutionState {
  const text = queryText(req, 'state') ?? 'failed';
  const state = EXECUTION_STATES.find((candidate) => candidate === text);
  if (state === undefined) {
    throw problems.badRequest(ERROR_CODES.invalidRequest, `\`state\` must be one of ${EXECUTION_STATES.map((s) => `\`${s}\``).join(', ')}, got \`${text.slice(0, 40)}\``, [
      { path: 'query.state', message: `must be one of ${EXECUTION_STATES.join(', ')}` },
    ]);
  }
  return state;
}

function limitOf(req: Request): number {
  const text = queryText(req, 'limit');
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw problems.badRequest(ERROR_CODES.invalidRequest, `\`limit\` must be an integer from 1 to ${MAX_LIMIT}, got \`${text.slice(0, 40)}\``, [
      { path: 'query.limit', message: `must be an integer from 1 to ${MAX_LIMIT}` },
    ]);
  }
  return limit;
}

/** The solutions a principal may see; undefined for every solution. */
function solutionsOf(res: Response): string[] | undefined {
  const principal = principalOf(res);
  return principal.allSolutions ? undefined : [...principal.solutions];
}

/**
 * `GET /executions?state=failed&limit=100` (scope `component:read`): stored PXP executes of the token's solutions in
 * one state, oldest first. Failed ones are those whose attempts were spent or whose PXP was not registered.
 */
export function listExecutions(deps: ExecutionRouteDeps): RequestHandler[] {
  return [
    requireScope(deps.verifier, SCOPES.componentRead),
    async (req, res) => {
      const state = stateOf(req);
      const limit = limitOf(req);
      const executions = await deps.store.list(state, solutionsOf(res), limit);
      res.json({ executions: executions.map(wireExecution) });
    },
  ];
}

/**
 * `POST /executions/{id}/retry` (scope `component:write`): a failed or refused execute becomes pending again with
 * fresh attempts (202 with the execute). 404 when there is none of the token's solutions with this id, 409 when it
 * is pending or done.
 */
export function retryExecution(deps: ExecutionRouteDeps): RequestHandler[] {
  return [
    requireScope(deps.verifier, SCOPES.componentWrite),
    async (req, res) => {
      const id = typeof req.params.id === 'string' ? req.params.id : '';
      if (!UUID.test(id)) throw problems.badRequest(ERROR_CODES.invalidId, `\`${id.slice(0, 64)}\` is not an execution id; expected a lower-case UUID`);
      const found = await deps.store.get(id);
      // A foreign solution's execute looks missing: its id tells nothing about the solution.
      if (found === undefined || !principalOf(res).mayAccess(found.solution)) throw problems.notFound(`no execution \`${id}\``);
      const retried = await deps.store.retry(id, Date.now());
      if (retried === undefined) throw problems.conflict(`execution \`${id}\` is ${found.state}; only failed and refused executes are retried`);
      deps.wake();
      res.status(202).json(wireExecution(retried));
    },
  ];
}
