import { parameterValue, wireParameters } from '@custos/contracts';
import type { NamedValue, PipAnswer, PipResolver } from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import type { CallTargets } from '../calls/http-json';
import type { ComponentRegistry } from '../components/registry';
import { canonicalJson } from '../history/hashing';

export type PipOutcome = 'answered' | 'cached' | 'failed' | 'refused' | 'unregistered';

export interface PipResolverOptions {
  targets: CallTargets;
  logger: Logger;
  /** Answers kept for `ttl` elements (oldest dropped first); 0 turns the cache off. */
  cacheEntries: number;
  now?: () => number;
  onOutcome?: (outcome: PipOutcome) => void;
}

interface CacheEntry {
  value: unknown;
  expires: number;
}

/**
 * Answers `pip:*` (policy-language.md §8, api.md §6) for the engine: finds the PIP in the registry of the active set,
 * calls `POST <url>/execute` with `{"infoId": {"urn": method}, "parameters": [...]}` through its CallTarget (timeout,
 * bounded concurrency, circuit breaker) and reads the ParameterValue it answers. Any failure is `{ok: false}` and the
 * engine takes the element's default. With a `ttl`, answers are cached per (method, parameters) for that long, and
 * concurrent identical calls share one request; without one, every evaluation asks (the engine already asks once per
 * request).
 */
export class HttpPipResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<PipAnswer>>();
  private readonly now: () => number;

  constructor(private readonly options: PipResolverOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The engine port for decisions taken with this registry. */
  bind(registry: ComponentRegistry): PipResolver {
    return { resolve: (method, parameters, options) => this.resolve(registry, method, parameters, options) };
  }

  resolve(registry: ComponentRegistry, method: string, parameters: readonly NamedValue[], options: { solution: string; ttlMs: number | null }): Promise<PipAnswer> {
    const ttlMs = options.ttlMs;
    if (ttlMs === null || ttlMs <= 0 || this.options.cacheEntries === 0) return this.call(registry, method, parameters, options.solution);
    const key = `${options.solution}\u0000${method}\u0000${canonicalJson(parameters)}`;
    const entry = this.cache.get(key);
    if (entry !== undefined) {
      if (entry.expires > this.now()) {
        this.options.onOutcome?.('cached');
        return Promise.resolve({ ok: true, value: entry.value, cached: true });
      }
      this.cache.delete(key);
    }
    const pending = this.inflight.get(key);
    if (pending !== undefined) return pending;
    const call = this.call(registry, method, parameters, options.solution).then((answer) => {
      this.inflight.delete(key);
      if (answer.ok) this.remember(key, answer.value, ttlMs);
      return answer;
    });
    this.inflight.set(key, call);
    return call;
  }

  /** Drops every cached answer (tests; a registry change does not need it: answers belong to the method). */
  clear(): void {
    this.cache.clear();
  }

  private remember(key: string, value: unknown, ttlMs: number): void {
    if (this.cache.size >= this.options.cacheEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(key, { value, expires: this.now() + ttlMs });
  }

  private async call(registry: ComponentRegistry, method: string, parameters: readonly NamedValue[], solution: string): Promise<PipAnswer> {
    const endpoint = registry.pip(solution, method);
    if (endpoint === undefined) {
      this.options.onOutcome?.('unregistered');
      this.options.logger.debug({ method, solution }, 'no pip is registered for the method; the default applies');
      return { ok: false };
    }
    const target = this.options.targets.forComponentUrl(endpoint.url);
    if (target === undefined) {
      this.options.onOutcome?.('unregistered');
      return { ok: false };
    }
    try {
      const answer = await target.post({ infoId: { urn: method }, parameters: wireParameters(parameters) });
      const value = answerValue(answer);
      if (value === undefined) {
        target.fault();
        this.options.onOutcome?.('failed');
        this.options.logger.warn({ method, component: endpoint.componentId }, 'pip answer is not a ParameterValue; the default applies');
        return { ok: false };
      }
      this.options.onOutcome?.('answered');
      return { ok: true, value };
    } catch (error) {
      const kind = (error as { kind?: string }).kind;
      this.options.onOutcome?.(kind === 'refused' || kind === 'egress' ? 'refused' : 'failed');
      // An egress refusal is said once per URL where the targets are made (compose), not on every decision.
      const level = kind === 'egress' ? 'debug' : 'warn';
      this.options.logger[level]({ method, component: endpoint.componentId, problem: (error as Error).message }, 'pip call failed; the default applies');
      return { ok: false };
    }
  }
}

/** The value of a ParameterValue answer (`{"value": ..., "type": ..., "isComplex": ...}`), or undefined. */
export function answerValue(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer) || !('value' in answer)) return undefined;
  const parameter = answer as { value: unknown; type?: unknown; isComplex?: unknown };
  return parameterValue({
    value: parameter.value,
    type: typeof parameter.type === 'string' ? parameter.type : 'java.lang.Object',
    isComplex: parameter.isComplex === true,
  });
}
