import type { DecisionRecordsAnswer, DecisionRecordWire } from '@custos/contracts';
import { useEffect, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import type { ExplainResult } from '../logic/api';
import { NO_FILTERS, decisionQuery, eventOfRecord, howDecided, type DecisionFilters } from '../logic/decisions';
import { explanationTree } from '../logic/explanation';
import { hrefOf } from '../router';
import { DataTable } from '../ui/data-table';
import { FilterForm, type FilterField } from '../ui/filter-form';
import { messageOf } from '../ui/messages';
import { Tree } from '../ui/tree';

const FIELDS: ReadonlyArray<FilterField<keyof DecisionFilters>> = [
  { name: 'solution', label: 'Solution', placeholder: 'acme' },
  { name: 'action', label: 'Action', placeholder: 'urn:action:acme:read' },
  { name: 'outcome', label: 'Outcome', choices: ['allow', 'inhibit'] },
  { name: 'decisionId', label: 'Decision id', placeholder: 'urn:decision:…' },
  { name: 'from', label: 'From', type: 'datetime-local' },
  { name: 'to', label: 'To', type: 'datetime-local' },
];

/**
 * Decisions (issue 24): the decision records the pdps published, searched through pap's `GET /ws/decisions`, and
 * one record in full (`#/decisions/<decision id>`). A record whose solution lists every parameter in clear carries
 * its event, which can be explained again against the policies deployed now.
 */
export function DecisionsPage({ ctx, openId }: { ctx: ConsoleContext; openId: string }) {
  const [filters, setFilters] = useState<DecisionFilters>(NO_FILTERS);
  const [answer, setAnswer] = useState<DecisionRecordsAnswer | undefined>(undefined);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const search = async (wanted: DecisionFilters) => {
    setBusy(true);
    try {
      setAnswer(await ctx.api.decisions(decisionQuery(wanted)));
      setError('');
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void search(NO_FILTERS), []);

  return (
    <section aria-labelledby="decisions-title">
      <h1 id="decisions-title">Decisions</h1>
      <p class="meta">
        The decision records the pdps published: what each decision line says, and the parameters a solution lets its
        records carry. The newest 100 that match are shown, oldest first.
      </p>
      <FilterForm
        label="Decision filters"
        name="decision-filters"
        fields={FIELDS}
        values={filters}
        onInput={setFilters}
        onSubmit={() => void search(filters)}
        submit="Search"
        busy={busy && 'Searching…'}
      />
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {openId !== '' && <RecordDetail key={openId} ctx={ctx} decisionId={openId} />}
      {answer === undefined ? <p>Loading…</p> : <RecordTable answer={answer} openId={openId} />}
    </section>
  );
}

function RecordTable({ answer, openId }: { answer: DecisionRecordsAnswer; openId: string }) {
  if (answer.records.length === 0) {
    return (
      <p>
        No decision record matches. The pdps publish records only when they run with <code>PDP_DECISION_RECORDS=on</code>.
      </p>
    );
  }
  return (
    <DataTable
      caption="Decision records"
      columns={['Answered', 'Decision', 'Solution', 'Action', 'Outcome', 'Replica']}
      trail={answer.truncated && <p class="meta">More records match: narrow the search to see older ones.</p>}
    >
      {answer.records.map((r) => (
        <tr key={r.decisionId} aria-current={r.decisionId === openId ? 'true' : undefined}>
          <td>
            <time dateTime={r.time}>{new Date(r.time).toLocaleString()}</time>
          </td>
          <td>
            <a href={hrefOf('decisions', r.decisionId)}>{r.decisionId}</a>
          </td>
          <td>{r.solution}</td>
          <td>{r.action}</td>
          <td>
            <span class={r.allowed ? 'allow' : 'inhibit'}>{r.allowed ? 'allow' : 'inhibit'}</span>
            {r.explain && ' (explain)'}
          </td>
          <td>{r.replicaId}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function RecordDetail({ ctx, decisionId }: { ctx: ConsoleContext; decisionId: string }) {
  const [record, setRecord] = useState<DecisionRecordWire | undefined>(undefined);
  const [error, setError] = useState('');
  const [again, setAgain] = useState<ExplainResult | undefined>(undefined);
  const [explaining, setExplaining] = useState(false);
  useEffect(() => {
    ctx.api.decision(decisionId).then(setRecord, (e: unknown) => setError(messageOf(e)));
  }, [decisionId]);
  if (error !== '') {
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  }
  if (record === undefined) return <p>Loading {decisionId}…</p>;
  const event = eventOfRecord(record);
  const explainAgain = async () => {
    if (event === undefined) return;
    setExplaining(true);
    try {
      setAgain(await ctx.api.explain(event));
      setError('');
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setExplaining(false);
    }
  };
  return (
    <section class="outcome decision-detail" aria-labelledby="decision-detail-title" data-testid="decision-detail">
      <h2 id="decision-detail-title">
        {record.decisionId}: <span class={record.allowed ? 'allow' : 'inhibit'}>{record.allowed ? 'allowed' : 'inhibited'}</span>
      </h2>
      <dl class="facts">
        <dt>Answered</dt>
        <dd>{new Date(record.time).toLocaleString()} by {record.replicaId} at revision {record.revision}, in {record.latencyUs} µs</dd>
        <dt>Action</dt>
        <dd>{record.action}</dd>
        <dt>How</dt>
        <dd>{howDecided(record)}</dd>
        <dt>Client and request</dt>
        <dd>
          {record.clientId}, request {record.requestId}
        </dd>
        {record.modifiers > 0 && (
          <>
            <dt>Modifiers</dt>
            <dd>{record.modifiers}</dd>
          </>
        )}
        {record.executions.length > 0 && (
          <>
            <dt>Executes</dt>
            <dd>{record.executions.map((e) => `${e.action} (${e.policyId})`).join(', ')}</dd>
          </>
        )}
        {record.errors.length > 0 && (
          <>
            <dt>Errors</dt>
            <dd>{record.errors.map((e) => `${e.policyId} ${e.mechanism}: ${e.message}`).join('; ')}</dd>
          </>
        )}
        <dt>Parameters</dt>
        <dd>
          {record.parameters === undefined
            ? 'not recorded (the solution has no recordParameters setting)'
            : record.parameters.map((p) => (
                <div key={p.name}>
                  <code>{p.name}</code>: {p.value === undefined ? <span class="meta">hash {p.hash}</span> : <code>{JSON.stringify(p.value.value)}</code>}
                </div>
              ))}
        </dd>
      </dl>
      {event === undefined ? (
        <p class="meta">The record does not carry the whole event, so it cannot be explained again.</p>
      ) : (
        <button type="button" disabled={explaining} onClick={() => void explainAgain()}>
          {explaining ? 'Explaining…' : 'Explain this event again'}
        </button>
      )}
      {again !== undefined && (
        <section aria-labelledby="again-title" data-testid="explained-again">
          <h3 id="again-title">
            Explained again now: <span class={again.decision.eventAllowed ? 'allow' : 'inhibit'}>{again.decision.eventAllowed ? 'allowed' : 'inhibited'}</span>
            {again.revision !== null && ` at revision ${again.revision}`}
          </h3>
          <Tree node={explanationTree(again.decision)} />
        </section>
      )}
    </section>
  );
}
