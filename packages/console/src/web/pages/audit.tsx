import { useEffect, useState } from 'preact/hooks';
import type { AuditPage as Page, AuditRecord } from '@custos/contracts';
import type { ConsoleContext } from '../context';
import { DataTable } from '../ui/data-table';
import { FilterForm, type FilterField } from '../ui/filter-form';
import { messageOf } from '../ui/messages';

interface Filters {
  who: string;
  operation: string;
  target: string;
  outcome: string;
}

const NO_FILTERS: Filters = { who: '', operation: '', target: '', outcome: '' };

const FIELDS: ReadonlyArray<FilterField<keyof Filters>> = [
  { name: 'who', label: 'Who', placeholder: 'client id' },
  { name: 'operation', label: 'Operation', placeholder: 'policy or policy.deploy' },
  { name: 'target', label: 'Target', placeholder: 'urn:policy:acme:x' },
  { name: 'outcome', label: 'Outcome', choices: ['accepted', 'refused', 'failed'] },
];

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

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <p class="meta">
        Every change of policies, timers, components, solution settings, clients, keys and revocations, and every refused or failed attempt at
        one. Records are kept for the services' <code>AUDIT_RETENTION_DAYS</code>.
      </p>
      <FilterForm
        label="Filter the audit trail"
        name="audit-filters"
        fields={FIELDS}
        values={draft}
        onInput={setDraft}
        onSubmit={() => {
          setCursors([]);
          setFilters(draft);
        }}
        submit="Filter"
      />
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
        <DataTable caption="Audit records" columns={['When', 'Outcome', 'Who', 'What', 'From', 'Why refused', 'Request']}>
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
        </DataTable>
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
