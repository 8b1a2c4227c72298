import type { Route } from '@custos/service-kit';
import { POLICY_KIND } from '../documents/policy-kind';
import { TIMER_KIND } from '../documents/timer-kind';
import { auditRoute } from './audit';
import { applyChanges } from './change-set';
import { getComponent } from './component-get';
import { listComponentsRoute } from './component-list';
import { registerComponent } from './component-register';
import { unregisterComponent } from './component-unregister';
import type { RouteContext } from './context';
import { documentRoutes } from './document-routes';
import { replicasRoute } from './replicas';
import { searchDecisions, showDecision } from './decisions';
import { timerScheduleRoute } from './timer-schedule';
import { languageRoute, xsdRoute } from './schema';
import { getSolutionSettings, putSolutionSettings } from './solution-settings';

/**
 * Every operation of pap's API (api.md §4), once: the router, the request checks and the OpenAPI document all
 * come from this table. Timers mirror policies, with the policy scopes.
 */
export const PAP_ROUTES: ReadonlyArray<Route<RouteContext>> = [
  listComponentsRoute,
  registerComponent,
  getComponent,
  unregisterComponent,
  ...documentRoutes(POLICY_KIND),
  ...documentRoutes(TIMER_KIND),
  timerScheduleRoute,
  applyChanges,
  replicasRoute,
  languageRoute,
  xsdRoute,
  getSolutionSettings,
  putSolutionSettings,
  auditRoute,
  searchDecisions,
  showDecision,
];
