import { actionLockKey, type ActionPlan } from '../../src/history/plan';

/** A recorded action's plan as the policy set would make it: recorded, with ports and history, counted by `filters`. */
export const actionPlan = (action: string, filters: ActionPlan['filters']): ActionPlan => ({
  action,
  record: true,
  usesPorts: true,
  usesHistory: true,
  filters,
  lockKey: actionLockKey(action),
});
