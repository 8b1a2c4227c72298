import type { Route } from '@custos/service-kit';
import { authzenMetadataRoute } from './authzen-metadata';
import type { PdpRouteDeps } from './context';
import { DECISION_ROUTES } from './decision-routes';
import { listExecutions, retryExecution } from './executions';
import { statusRoute } from './status';

/**
 * Every operation of the pdp, once: the bare node:http dispatch of the decision routes, the express app behind it
 * and the OpenAPI document all come from this table.
 */
export const PDP_ROUTES: ReadonlyArray<Route<PdpRouteDeps>> = [...DECISION_ROUTES, authzenMetadataRoute, statusRoute];

/** The stored PXP executes, served when the pdp keeps them (a database). */
export const EXECUTION_ROUTES: ReadonlyArray<Route<PdpRouteDeps>> = [listExecutions, retryExecution];
