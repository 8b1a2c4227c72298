import type { TimerSchedule } from '@custos/contracts';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import type { DocumentKindName, StoredDocument } from '../logic/api';
import { filterDocuments, formatSize, solutionsOf, type DeployedFilter } from '../logic/documents';
import { hrefOf, navigate } from '../router';
import { DataTable } from '../ui/data-table';
import { Dialog } from '../ui/dialog';
import { messageOf } from '../ui/messages';
import { Propagation } from '../ui/propagation';
import { TimerScheduleCell } from '../ui/timer-schedule';
import { DocumentEditor } from './document-editor';

const NOUN: Record<DocumentKindName, { one: string; many: string; page: string }> = {
  policy: { one: 'policy', many: 'Policies', page: 'policies' },
  timer: { one: 'timer', many: 'Timers', page: 'timers' },
};

/** The outcome of the last action, shown above the list (with the replicas' progress for deployed-set changes). */
interface Outcome {
  text: string;
  revision?: number;
  error?: boolean;
}

export function DocumentsPage({ kind, openId, ctx }: { kind: DocumentKindName; openId: string; ctx: ConsoleContext }) {
  const noun = NOUN[kind];
  const [documents, setDocuments] = useState<StoredDocument[] | undefined>(undefined);
  const [loadError, setLoadError] = useState('');
  const [search, setSearch] = useState('');
  const [solution, setSolution] = useState('');
  const [deployed, setDeployed] = useState<DeployedFilter>('all');
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [removing, setRemoving] = useState<string | undefined>(undefined);
  const [revision, setRevision] = useState<number | undefined>(undefined);
  /** Undeployed documents ticked to be deployed together, as one revision. */
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  /** Timers only: when each fires next, by id (missing while loading, or when pap could not say). */
  const [schedules, setSchedules] = useState<ReadonlyMap<string, TimerSchedule>>(new Map());

  const load = async () => {
    try {
      const loaded = await ctx.api.documents(kind);
      setDocuments(loaded);
      setLoadError('');
      if (kind === 'timer') void loadSchedules(loaded);
    } catch (e) {
      setLoadError(messageOf(e));
    }
    ctx.api.replicas().then(
      (answer) => setRevision(answer.revision),
      () => setRevision(undefined),
    );
  };
  const loadSchedules = async (timers: readonly StoredDocument[]) => {
    const answers = await Promise.all(timers.map((t) => ctx.api.timerSchedule(t.id.identifier).catch(() => undefined)));
    setSchedules(new Map(answers.filter((a): a is TimerSchedule => a !== undefined).map((a) => [a.id.identifier, a])));
  };
  useEffect(() => {
    setSelected(new Set());
    void load();
  }, [kind, openId]);

  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  const deploySelected = () => {
    const ids = [...selected];
    setSelected(new Set());
    void act(`Deployed ${ids.length} ${ids.length === 1 ? noun.one : noun.many.toLowerCase()} at once`, () => ctx.api.deployAll(kind, ids));
  };

  const shown = useMemo(() => filterDocuments(documents ?? [], { search, solution, deployed }), [documents, search, solution, deployed]);

  const act = async (label: string, run: () => Promise<{ result: boolean; revision: number | undefined }>) => {
    try {
      const answer = await run();
      ctx.sawRevision(answer.revision);
      setOutcome({ text: answer.result ? label : `${label}: nothing to do`, ...(answer.revision !== undefined && answer.result ? { revision: answer.revision } : {}) });
    } catch (e) {
      setOutcome({ text: messageOf(e), error: true });
    }
    await load();
  };

  if (openId !== '') {
    return (
      <DocumentEditor
        // One editor per address: going from a document to `new` (or to another one) starts afresh, with none of the
        // previous text, check or banner.
        key={openId}
        kind={kind}
        id={openId === 'new' ? undefined : openId}
        ctx={ctx}
        onDone={(text, changedRevision) => {
          setOutcome({ text, ...(changedRevision !== undefined ? { revision: changedRevision } : {}) });
          navigate(noun.page);
        }}
      />
    );
  }

  return (
    <section aria-labelledby="documents-title">
      <div class="heading">
        <h1 id="documents-title">{noun.many}</h1>
        <a class="button" href={hrefOf(noun.page, 'new')}>
          New {noun.one}
        </a>
      </div>
      <p class="meta">{revision !== undefined ? `The deployed set is at revision ${revision}.` : ''}</p>
      {outcome !== undefined && (
        <p class={outcome.error ? 'error' : 'notice'} role={outcome.error ? 'alert' : 'status'}>
          {outcome.text}
          {outcome.revision !== undefined && (
            <>
              {' '}
              at revision {outcome.revision}; <Propagation ctx={ctx} revision={outcome.revision} />
            </>
          )}
        </p>
      )}
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="filter-search">Search</label>
          <input id="filter-search" type="search" value={search} placeholder="id, name or description" onInput={(e) => setSearch(e.currentTarget.value)} />
        </div>
        <div>
          <label for="filter-solution">Solution</label>
          <select id="filter-solution" value={solution} onChange={(e) => setSolution(e.currentTarget.value)}>
            <option value="">all solutions</option>
            {solutionsOf(documents ?? []).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="filter-deployed">State</label>
          <select id="filter-deployed" value={deployed} onChange={(e) => setDeployed(e.currentTarget.value as DeployedFilter)}>
            <option value="all">deployed or not</option>
            <option value="deployed">deployed</option>
            <option value="undeployed">not deployed</option>
          </select>
        </div>
      </form>
      {loadError !== '' && (
        <p class="error" role="alert">
          {loadError}
        </p>
      )}
      {documents === undefined ? (
        <p>Loading…</p>
      ) : shown.length === 0 ? (
        <p>{documents.length === 0 ? `No ${noun.one} yet.` : `No ${noun.one} matches.`}</p>
      ) : (
        <DataTable
          caption={noun.many}
          columns={[<span class="visually-hidden">Select</span>, 'Id', kind === 'timer' ? 'Schedule' : 'Name', 'State', 'Size', 'Updated', 'Actions']}
          stack
          lead={
            <p>
              <button type="button" disabled={selected.size === 0} onClick={deploySelected}>
                Deploy selected ({selected.size})
              </button>{' '}
              <span class="meta">as one revision: every pdp switches to all of them at once</span>
            </p>
          }
        >
          {shown.map((d) => {
            const id = d.id.identifier;
            return (
              <tr key={id}>
                <td data-label="Select">
                  {!d.deployed && (
                    <input type="checkbox" aria-label={`Select ${id}`} checked={selected.has(id)} onChange={(e) => toggle(id, e.currentTarget.checked)} />
                  )}
                </td>
                <td data-label="Id">
                  <a href={hrefOf(noun.page, id)}>{id}</a>
                </td>
                <td data-label={kind === 'timer' ? 'Schedule' : 'Name'}>
                  {kind === 'timer' ? <TimerScheduleCell cron={d.cron ?? ''} schedule={schedules.get(id)} /> : (d.name ?? '')}
                </td>
                <td data-label="State">
                  <span class={d.deployed ? 'badge on' : 'badge'}>{d.deployed ? 'deployed' : 'not deployed'}</span>
                </td>
                <td data-label="Size">{formatSize(d.xml)}</td>
                <td data-label="Updated">
                  <time dateTime={d.updatedAt}>{new Date(d.updatedAt).toLocaleString()}</time>
                </td>
                <td data-label="Actions">
                  <div class="row-actions">
                    {d.deployed ? (
                      <button type="button" aria-label={`Revoke ${id}`} onClick={() => void act(`Revoked ${id}`, () => ctx.api.revoke(kind, id))}>
                        Revoke
                      </button>
                    ) : (
                      <button type="button" aria-label={`Deploy ${id}`} onClick={() => void act(`Deployed ${id}`, () => ctx.api.deploy(kind, id))}>
                        Deploy
                      </button>
                    )}
                    <button type="button" class="danger" aria-label={`Remove ${id}`} onClick={() => setRemoving(id)}>
                      Remove
                    </button>
                  </div>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {removing !== undefined && (
        <Dialog
          title={`Remove ${noun.one}?`}
          confirmLabel="Remove"
          danger
          onCancel={() => setRemoving(undefined)}
          onConfirm={() => {
            const id = removing;
            setRemoving(undefined);
            void act(`Removed ${id}`, () => ctx.api.remove(kind, id));
          }}
        >
          <p>
            <code>{removing}</code> is deleted for good; if it is deployed, it is revoked first.
          </p>
        </Dialog>
      )}
    </section>
  );
}
