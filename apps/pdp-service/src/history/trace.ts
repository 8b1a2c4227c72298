import type { TraceAttributes, TraceSpan, TraceSpanContext, Tracing } from '@custos/service-kit';

/** What a caller waiting on a shared history round trip leaves in its queue: how to settle it, and whose span it is. */
export interface AwaitingRoundTrip<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (error: unknown) => void;
  /** The span of the decision that is waiting, when traced. */
  readonly trace: TraceSpanContext | undefined;
}

/**
 * The span of one history round trip, which several decisions share (a batch of recorded events, the reads of
 * decisions evaluated side by side): a child of the first decision's span, so a trace shows the statement under the
 * decision that opened the batch, and linked to the span of every decision in it, so each of the others finds it too.
 * A round trip no traced decision asked for is a root.
 */
export function historySpan(tracing: Tracing, name: string, decisions: ReadonlyArray<TraceSpanContext | undefined>, attributes: TraceAttributes): TraceSpan {
  const links = decisions.filter((context): context is TraceSpanContext => context !== undefined);
  const parent = links[0];
  return tracing.startSpan(name, {
    kind: 'client',
    ...(parent === undefined ? { root: true } : { parent }),
    links,
    attributes: { 'db.system.name': 'postgresql', ...attributes },
  });
}
