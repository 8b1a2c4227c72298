import { useEffect, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import type { ReplicasAnswer } from '../logic/api';
import { agoOf } from '../logic/replicas';
import { DataTable } from '../ui/data-table';
import { messageOf } from '../ui/messages';

const REFRESH_MS = 2000;

export function ReplicasPage({ ctx }: { ctx: ConsoleContext }) {
  const [answer, setAnswer] = useState<ReplicasAnswer | undefined>(undefined);
  const [error, setError] = useState('');
  useEffect(() => {
    let timer = 0;
    const load = async () => {
      try {
        setAnswer(await ctx.api.replicas());
        setError('');
      } catch (e) {
        setError(messageOf(e));
      }
      timer = window.setTimeout(() => void load(), REFRESH_MS);
    };
    void load();
    return () => window.clearTimeout(timer);
  }, []);

  return (
    <section aria-labelledby="replicas-title">
      <h1 id="replicas-title">Replicas</h1>
      <p class="meta">
        Every pdp replica reports its state over NATS every few seconds; pap shows what it heard last. A replica that
        stops reporting (stopped, or cut off) stays listed as silent, with when it was last seen, for an hour.
        {answer !== undefined && ` pap's deployed set is at revision ${answer.revision}.`}
      </p>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {answer === undefined ? (
        <p>Loading…</p>
      ) : answer.replicas.length === 0 ? (
        <p>No replica has reported yet.</p>
      ) : (
        <DataTable caption="Replicas" columns={['Replica', 'State', 'Active revision', 'Behind by', 'Last apply took', 'NATS', 'Last report']}>
          {answer.replicas.map((r) => (
            <tr key={r.replica} class={r.stale ? 'stale' : ''}>
              <td>{r.replica}</td>
              <td>{r.stale ? <span class="badge silent">silent: last seen {agoOf(r.lastSeenAt, Date.now())}</span> : <span class="badge on">reporting</span>}</td>
              <td>{r.revision ?? (r.ready ? '–' : 'starting')}</td>
              <td>{r.lag === null ? '–' : r.lag === 0 ? 'up to date' : `${r.lag} revision${r.lag === 1 ? '' : 's'}`}</td>
              <td>{r.lagMs === null ? '–' : `${r.lagMs} ms`}</td>
              <td>{r.natsConnected ? 'connected' : 'disconnected'}{r.stale ? ' (when last seen)' : ''}</td>
              <td>
                <time dateTime={r.lastSeenAt}>{new Date(r.lastSeenAt).toLocaleTimeString()}</time>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
