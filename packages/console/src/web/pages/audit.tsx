import { useEffect, useState } from 'preact/hooks';
import type { AuditPage as Page, AuditRecord } from '@custos/contracts';
import type { ConsoleContext } from '../context';
import { messageOf } from '../ui/messages';

interface Filters {
  who: string;
  operation: string;
  target: string;
  outcome: string;
}

const NO_FILTERS: Filters = { who: '', operation: '', target: '', outcome: '' };

/** What was asked, of which target, at which revision: one cell. */
const whatOf = (record: AuditRecord): string =>
  `${record.operation}${record.target === null ? '' : ` ${record.target}`}${record.revision === null ? '' : ` (revision ${record.revision})`}`;

/**
 * The audit trail of management: who changed what, when, from where, and the attempts that were refused or failed,
 * newest first, pap's and auth's records together. Filters narrow it; "Older" follows the cursor.
 */
export function AuditPage({ ctx }: { ctx: ConsoleContext }) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [error, setError] = useState('');
  const cursor = cursors.at(-1);

  useEffect(() => {
    let live = true;
    setPage(undefined);
    ctx.api.audit({ ...filters, ...(cursor === undefined ? {} : { cursor }) }).then(
      (answer) => {
        if (!live) return;
        setPage(answer);
        setError('');
      },
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [filters, cursor]);

  const field = (name: keyof Filters, label: string, hint: string) => (
    <label>
      {label}
      <input value={draft[name]} placeholder={hint} onInput={(e) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })} />
    </label>
  );

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <p class="meta">
        Every change of policies, timers, components, solution settings, clients, keys and revocations, and every refused or failed attempt at
        one. Records are kept for the services' <code>AUDIT_RETENTION_DAYS</code>.
      </p>
      <form
        class="audit-filters"
        aria-label="Filter the audit trail"
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([]);
          setFilters(draft);
        }}
      >
        {field('who', 'Who', 'client id')}
        {field('operation', 'Operation', 'policy or policy.deploy')}
        {field('target', 'Target', 'urn:policy:acme:x')}
        <label>
          Outcome
          <select value={draft.outcome} onChange={(e) => setDraft({ ...draft, outcome: (e.target as HTMLSelectElement).value })}>
            <option value="">any</option>
            <option value="accepted">accepted</option>
            <option value="refused">refused</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {page !== undefined && page.incomplete.length > 0 && <p class="meta">Without the records of {page.incomplete.join(', ')}: they could not be read.</p>}
      {page === undefined ? (
        error === '' && <p>Loading…</p>
      ) : page.records.length === 0 ? (
        <p>No audit records.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Audit records</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Outcome</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">From</th>
                <th scope="col">Why refused</th>
                <th scope="col">Request</th>
              </tr>
            </thead>
            <tbody>
              {page.records.map((record) => (
                <tr key={record.id}>
                  <td>
                    <time dateTime={record.at}>{new Date(record.at).toLocaleString()}</time>
                  </td>
                  <td>
                    <span class={`badge ${record.outcome === 'accepted' ? 'on' : 'silent'}`}>
                      {record.outcome} {record.status === 0 ? '' : record.status}
                    </span>
                  </td>
                  <td>{record.who ?? 'unauthenticated'}</td>
                  <td>{whatOf(record)}</td>
                  <td>{record.address ?? (record.status === 0 ? 'command line' : '–')}</td>
                  <td>{record.reason ?? ''}</td>
                  <td>
                    {record.service} {record.requestId ?? ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>
        {cursors.length > 0 && (
          <button type="button" class="secondary" onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </button>
        )}{' '}
        {page?.next != null && (
          <button type="button" class="secondary" onClick={() => setCursors([...cursors, page.next ?? ''])}>
            Older
          </button>
        )}
      </p>
    </section>
  );
}
