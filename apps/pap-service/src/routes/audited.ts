import type { Response } from 'express';
import type { AuditChange } from '@custos/service-kit';
import type { ChangeHook } from '../store/db';
import type { RouteContext } from './context';

/**
 * The hook that writes a change's audit record inside the change's transaction: `what` says from the outcome what
 * was changed (undefined: nothing was, as for a deploy of a deployed document, and no record is written).
 */
export function audited<T>(deps: RouteContext, res: Response, what: (outcome: T) => AuditChange | undefined): ChangeHook<T> {
  return async (client, outcome) => {
    const change = what(outcome);
    if (change !== undefined) await deps.audit.recordIn(client, res, change);
  };
}

/** The revision a change took, or null when the deployed set did not change. */
export const revisionOf = (outcome: { changed: boolean; revision?: number | undefined }): number | null =>
  outcome.changed && outcome.revision !== undefined ? outcome.revision : null;
