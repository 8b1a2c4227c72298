import type { EvaluationPorts, NamedValue, PipAnswer, PipResolver, PxpExecutor } from '@custos/policy-engine';
import { canonicalJson } from '../history/hashing';

export type CallPorts = Pick<EvaluationPorts, 'pip' | 'pxp'>;

const callKey = (name: string, parameters: readonly NamedValue[], solution: string): string =>
  `${solution}\u0000${name}\u0000${canonicalJson(parameters)}`;

/**
 * The PIP answers and condition-execute answers of one decision. A recorded decision is evaluated while its
 * action's lock is held, and nothing that waits on another service may happen then: the calls are made by an
 * evaluation before the batch (`recording`), and the evaluation under the lock is answered from here
 * (`replaying`). Every call is made at most once per decision, also when the decision is evaluated again.
 */
export class CallMemo {
  private readonly pips = new Map<string, PipAnswer>();
  private readonly executes = new Map<string, boolean>();
  /** Questions the locked evaluation asked that were not answered here. */
  misses = 0;

  /** Ports that ask the real PIPs and PXPs (only what is not known yet) and remember the answers. */
  recording(ports: CallPorts): CallPorts {
    const { pip, pxp } = ports;
    return {
      pip:
        pip === undefined
          ? undefined
          : {
              resolve: async (method, parameters, options) => {
                const key = callKey(method, parameters, options.solution);
                const known = this.pips.get(key);
                if (known !== undefined) return known;
                const answer = await pip.resolve(method, parameters, options);
                this.pips.set(key, answer);
                return answer;
              },
            },
      pxp:
        pxp === undefined
          ? undefined
          : {
              execute: async (action, parameters, options) => {
                const key = callKey(action, parameters, options.solution);
                const known = this.executes.get(key);
                if (known !== undefined) return known;
                const answer = await pxp.execute(action, parameters, options);
                this.executes.set(key, answer);
                return answer;
              },
            },
    };
  }

  /**
   * Ports that answer only from memory. A question never asked before counts a miss and gets what a failed call
   * gets (PIP: its default; execute: false), so an evaluation that missed must be withdrawn, or accepted as failing
   * those calls.
   */
  replaying(ports: CallPorts): CallPorts {
    const pip: PipResolver | undefined =
      ports.pip === undefined
        ? undefined
        : {
            resolve: (method, parameters, options) => {
              const known = this.pips.get(callKey(method, parameters, options.solution));
              if (known !== undefined) return Promise.resolve(known);
              this.misses += 1;
              return Promise.resolve({ ok: false });
            },
          };
    const pxp: PxpExecutor | undefined =
      ports.pxp === undefined
        ? undefined
        : {
            execute: (action, parameters, options) => {
              const known = this.executes.get(callKey(action, parameters, options.solution));
              if (known !== undefined) return Promise.resolve(known);
              this.misses += 1;
              return Promise.resolve(false);
            },
          };
    return { pip, pxp };
  }
}
