import { isDeepStrictEqual } from 'node:util';
import type { NamedValue, PipAnswer, PipResolver, PxpExecutor } from '@custos/policy-engine';
import type { PipStub, PxpStub } from './test-file';

/** Parameters as a plain record, the form stubs and expectations are written in. */
export function recordOf(parameters: readonly NamedValue[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const parameter of parameters) record[parameter.name] = parameter.value ?? null;
  return record;
}

/**
 * Answers `pip:*` from stubs: the first stub of the method whose `parameters` equal the call's exactly, else the
 * first of the method without `parameters` (its catch-all). No stub: the PIP is unregistered and the element takes its
 * default, as in the pdp.
 */
export function stubPip(stubs: readonly PipStub[]): PipResolver {
  return {
    resolve(method, parameters): Promise<PipAnswer> {
      const given = recordOf(parameters);
      const ofMethod = stubs.filter((stub) => stub.method === method);
      const stub =
        ofMethod.find((candidate) => candidate.parameters !== null && isDeepStrictEqual(candidate.parameters, given)) ??
        ofMethod.find((candidate) => candidate.parameters === null);
      if (stub === undefined || stub.fail) return Promise.resolve({ ok: false });
      return Promise.resolve({ ok: true, value: stub.value });
    },
  };
}

export interface PxpCall {
  action: string;
  parameters: Record<string, unknown>;
}

/**
 * Answers `execute` inside conditions from stubs and records the calls. An action without a stub answers false,
 * as the pdp's answer is false for a PXP it cannot reach.
 */
export function stubPxp(stubs: readonly PxpStub[], calls: PxpCall[] | null): PxpExecutor {
  return {
    execute(action, parameters): Promise<boolean> {
      calls?.push({ action, parameters: recordOf(parameters) });
      return Promise.resolve(stubs.find((stub) => stub.action === action)?.answer ?? false);
    },
  };
}
