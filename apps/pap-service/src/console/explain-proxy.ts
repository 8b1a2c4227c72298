import type { Request, Response } from 'express';
import { HEADERS, type Event, type Modifier } from '@custos/contracts';
import { applyModifiers } from '@custos/pep';
import { JSON_TYPES, readBody, requireMediaType, type Logger } from '@custos/service-kit';
import { callUpstream, relay } from './upstream';

/** api.md §3: events up to 1 MiB. */
const EVENT_BODY_LIMIT = 1024 * 1024;

/** What the console shows for one explained event. */
export interface ConsoleExplanation {
  /** The `Policy-Revision` the pdp answered with. */
  revision: number | null;
  /** The pdp's answer to `/event/explain`, unchanged. */
  decision: unknown;
  /** The event after the decision's modifiers, as the PEP SDK applies them; null when there are none to apply. */
  modifiedEvent: Event | null;
  /** Why the modifiers could not be applied, when they could not (a PEP would then fail closed). */
  modifyError: string | null;
}

/**
 * `POST /console/explain` (scope `event:decide`): forwards the event to a pdp's `/event/explain` with the caller's
 * token and `Min-Policy-Revision`, then applies the decision's modifiers to a copy of the event with the PEP SDK —
 * here and not in the browser because the SDK hashes and draws random numbers synchronously with node:crypto,
 * which browsers do not offer. A pdp's error answer is passed on unchanged.
 */
export function explainProxy(pdpUrl: string, logger: Logger): (req: Request, res: Response) => Promise<void> {
  const target = `${pdpUrl.replace(/\/+$/, '')}/event/explain`;
  return async (req, res) => {
    requireMediaType(req, JSON_TYPES);
    const body = await readBody(req, EVENT_BODY_LIMIT);
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (typeof req.headers.authorization === 'string') headers.Authorization = req.headers.authorization;
    const minRevision = req.headers[HEADERS.minPolicyRevision.toLowerCase()];
    if (typeof minRevision === 'string') headers[HEADERS.minPolicyRevision] = minRevision;
    const upstream = await callUpstream('pdp-service', target, { method: 'POST', headers, body }, logger);
    res.setHeader('Cache-Control', 'no-store');
    if (upstream.status !== 200) {
      await relay(upstream, res);
      return;
    }
    const decision = (await upstream.json()) as { eventAllowed?: unknown; modifiers?: unknown };
    const revisionHeader = upstream.headers.get(HEADERS.policyRevision);
    // The pdp accepted the body, so it is a JSON event.
    const answer: ConsoleExplanation = {
      revision: revisionHeader === null ? null : Number(revisionHeader),
      decision,
      ...modified(JSON.parse(body) as Event, decision),
    };
    res.json(answer);
  };
}

function modified(event: Event, decision: { eventAllowed?: unknown; modifiers?: unknown }): Pick<ConsoleExplanation, 'modifiedEvent' | 'modifyError'> {
  const modifiers = Array.isArray(decision.modifiers) ? (decision.modifiers as Modifier[]) : [];
  if (decision.eventAllowed !== true || modifiers.length === 0) return { modifiedEvent: null, modifyError: null };
  const copy = structuredClone(event);
  try {
    applyModifiers(copy, modifiers);
    return { modifiedEvent: copy, modifyError: null };
  } catch (error) {
    return { modifiedEvent: null, modifyError: error instanceof Error ? error.message : String(error) };
  }
}
