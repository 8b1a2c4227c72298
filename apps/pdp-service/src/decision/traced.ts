import type { Tracing } from '@custos/service-kit';
import type { Decided, DecisionTask } from './pipeline';

/**
 * A decision as a span (`custos.decision`, `custos.explain` for an explanation), taken only when tracing is on:
 * continuing the `traceparent` of the request's headers when the task has them (POST /event), under the active span
 * otherwise (the request span of POST /events and AuthZEN), a root for a timer's tick. The span is active while the
 * decision runs, so its history statements, PIP calls and PXP executes are its children, and it ends once the
 * executes are stored (or the decision failed).
 */
export function tracedDecision(tracing: Tracing, task: DecisionTask, run: () => Decided | Promise<Decided>): Decided | Promise<Decided> {
  const span = tracing.startSpan(task.explain ? 'custos.explain' : 'custos.decision', {
    kind: task.headers === undefined ? 'internal' : 'server',
    ...(task.headers !== undefined ? { headers: task.headers } : task.timerId !== undefined ? { root: true } : {}),
    attributes: {
      'custos.action': task.event.action,
      'custos.solution': task.solution,
      'custos.policy_revision': task.active.revision,
      ...(task.timerId === undefined ? {} : { 'custos.timer.id': task.timerId }),
    },
  });
  const finish = (done: Decided): Decided => {
    span.setAttributes({ 'custos.decision.id': done.decisionId, 'custos.decision': done.decision.allowed ? 'allow' : 'inhibit' });
    if (done.stored === undefined) tracing.end(span);
    else done.stored.then(() => tracing.end(span), (error: unknown) => tracing.end(span, error));
    return done;
  };
  let result: Decided | Promise<Decided>;
  try {
    result = tracing.withSpan(span, run);
  } catch (error) {
    tracing.end(span, error);
    throw error;
  }
  if (!(result instanceof Promise)) return finish(result);
  return result.then(finish, (error: unknown) => {
    tracing.end(span, error);
    throw error;
  });
}
