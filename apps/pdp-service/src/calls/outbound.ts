import type { Pool } from 'pg';
import type { Logger, Tracing } from '@custos/service-kit';
import type { ComponentRegistry } from '../components/registry';
import type { PdpConfig } from '../config';
import type { PdpMetrics } from '../metrics';
import { HttpPipResolver } from '../pip/resolver';
import { PgExecutionStore } from '../pxp/execution-store';
import { PxpGateway } from '../pxp/gateway';
import { CallTargets } from './http-json';

/** What the pdp calls out with: the targets of each kind of call, the PIP resolver, and the PXP gateway with its store. */
export interface OutboundCalls {
  pipTargets: CallTargets;
  pxpTargets: CallTargets;
  pip: HttpPipResolver;
  pxp: PxpGateway;
  executions: PgExecutionStore;
}

export interface OutboundDeps {
  config: PdpConfig;
  logger: Logger;
  metrics: PdpMetrics;
  tracing: Tracing;
  /** The history pool: stored executes live beside the history. */
  pool: Pool;
  /** The components of the active set, for the durable executes' polling (none before the first set). */
  registry: () => ComponentRegistry | undefined;
}

/** The part of `composePdp` that makes PIP and PXP calls: made once per pdp, closed by its closers. */
export function composeOutboundCalls({ config, logger, metrics, tracing, pool, registry }: OutboundDeps): OutboundCalls {
  // A refused call is counted every time and logged once per URL: a policy asking it on every decision would
  // otherwise fill the log with the same line (the PIP resolver says each one at debug level only).
  const targets = (call: 'pip' | 'pxp') =>
    new CallTargets({
      timeoutMs: config[call].timeoutMs,
      maxConcurrency: config[call].maxConcurrency,
      breakerFailures: config[call].breakerFailures,
      breakerOpenMs: config[call].breakerOpenMs,
      egress: config.egress,
      onEgressRefusal: (url, reason, first) => {
        metrics.egressRefusals.inc({ call });
        if (first) logger.warn({ url: `${url.protocol}//${url.host}${url.pathname}`, reason }, `${call} call refused by the egress policy (PDP_CALL_ALLOW); said once per url`);
      },
      tracing: { tracing, span: `custos.${call}.call` },
    });
  const pipTargets = targets('pip');
  const pxpTargets = targets('pxp');
  const pip = new HttpPipResolver({
    targets: pipTargets,
    logger,
    cacheEntries: config.pip.cacheEntries,
    onOutcome: (outcome) => metrics.pipCalls.inc({ outcome }),
  });
  const executions = new PgExecutionStore(pool, config.replicaId);
  const pxp = new PxpGateway({
    targets: pxpTargets,
    logger,
    timeoutMs: config.pxp.timeoutMs,
    syncTimeoutMs: config.pxp.syncTimeoutMs,
    attempts: config.pxp.attempts,
    backoffMs: config.pxp.backoffMs,
    onOutcome: (kind, outcome) => metrics.pxpExecutions.inc({ kind, outcome }),
    durable: {
      store: executions,
      leaseMs: config.pxp.leaseMs,
      pollMs: config.pxp.pollMs,
      registry,
      onCounts: (counts) => {
        metrics.pxpExecutionsStored.set({ state: 'pending' }, counts.pending);
        metrics.pxpExecutionsStored.set({ state: 'failed' }, counts.failed);
      },
    },
  });
  return { pipTargets, pxpTargets, pip, pxp, executions };
}
