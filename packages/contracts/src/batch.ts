import { Type, type Static } from '@sinclair/typebox';
import { eventSchema, type Event } from './event';
import { authorizationDecisionSchema } from './schemas';

/**
 * Custos' own batch form (docs/api.md, "Batch decisions"): `POST /events` with several events, answered with their
 * decisions in the same order, each decided exactly as `POST /event` would decide it.
 */

/** Most items one batch request may carry (`POST /events`, `POST /access/v1/evaluations`); more is a 413. */
export const MAX_BATCH_ITEMS = 100;

/** Largest body of a batch request; one event alone may be 1 MiB (api.md §5), a batch of them 4 MiB. */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

export const eventBatchSchema = Type.Object(
  {
    events: Type.Array(eventSchema, {
      maxItems: MAX_BATCH_ITEMS,
      description: `the events, decided one after another in this order; at most ${MAX_BATCH_ITEMS}`,
    }),
  },
  { additionalProperties: true },
);

/** A batch as Custos' own clients write it (see `Event`). */
export type EventBatch = Static<typeof eventBatchSchema> & { events: Event[] };

export const decisionBatchSchema = Type.Object({
  decisions: Type.Array(authorizationDecisionSchema, { description: 'one decision per event, in the order of the events' }),
});
export type DecisionBatch = Static<typeof decisionBatchSchema>;
