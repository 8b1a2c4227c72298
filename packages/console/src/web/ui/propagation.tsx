import { useEffect, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import { everyReplicaHas, replicasBehind } from '../logic/replicas';

const POLL_MS = 1000;
const GIVE_UP_MS = 60_000;

/** After a change of the deployed set: whether every pdp replica has applied its revision yet. */
export function Propagation({ ctx, revision }: { ctx: ConsoleContext; revision: number }) {
  const [state, setState] = useState<{ done: boolean; text: string }>({ done: false, text: 'asking the replicas…' });
  useEffect(() => {
    let stopped = false;
    const started = Date.now();
    const poll = async () => {
      try {
        const { replicas } = await ctx.api.replicas();
        if (stopped) return;
        const live = replicas.filter((r) => !r.stale);
        if (everyReplicaHas(replicas, revision)) {
          setState({ done: true, text: `every replica (${live.length}) has it` });
          return;
        }
        const behind = replicasBehind(replicas, revision);
        setState({ done: false, text: live.length === 0 ? 'no replica has reported yet' : `waiting for ${behind.join(', ')}` });
      } catch {
        if (!stopped) setState({ done: false, text: 'replica status unavailable' });
      }
      if (!stopped && Date.now() - started < GIVE_UP_MS) window.setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
    };
  }, [revision]);
  return (
    <span class={state.done ? 'propagated' : 'propagating'} data-testid="propagation">
      {state.text}
    </span>
  );
}
