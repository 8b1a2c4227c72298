import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import type { TimerSchedule } from '@custos/contracts';
import type { DocumentKindName, StoredDocument } from '../logic/api';
import { placeDiagnostics, type PlacedDiagnostic } from '../logic/diagnostics';
import { declaredCron, declaredId, documentTemplate } from '../logic/documents';
import { ApiError, type ProblemItem } from '../logic/problem';
import { REVIEW_CAPTION } from '../logic/versions';
import { Dialog } from '../ui/dialog';
import { DiffView } from '../ui/diff-view';
import { messageOf } from '../ui/messages';
import { Propagation } from '../ui/propagation';
import { TimerScheduleCell } from '../ui/timer-schedule';
import { XmlEditor } from '../ui/xml-editor';
import { DocumentHistory } from './document-history';

interface Props {
  kind: DocumentKindName;
  /** undefined: a new document. */
  id: string | undefined;
  ctx: ConsoleContext;
  onDone: (text: string, revision: number | undefined) => void;
}

type Check = { state: 'checking' } | { state: 'valid' } | { state: 'invalid'; diagnostics: PlacedDiagnostic[] };

export function DocumentEditor({ kind, id, ctx, onDone }: Props) {
  const [stored, setStored] = useState<StoredDocument | undefined>(undefined);
  const [loadError, setLoadError] = useState('');
  const [check, setCheck] = useState<Check>({ state: 'checking' });
  const [reviewing, setReviewing] = useState(false);
  const [saveError, setSaveError] = useState('');
  const [busy, setBusy] = useState(false);
  /** A stored timer's next fire times (pap's, from its stored cron). */
  const [schedule, setSchedule] = useState<TimerSchedule | undefined>(undefined);
  const text = useRef(id === undefined ? documentTemplate(kind) : '');
  // Answers may arrive out of order; only the latest check may set what the page says.
  const checks = useRef(0);
  /** A stored document's tabs: its text in the editor, or its history of versions. */
  const [tab, setTab] = useState<'text' | 'history'>('text');
  /** Bumped by a restore: the document is read again and the editor starts from the restored text. */
  const [loads, setLoads] = useState(0);
  const [restored, setRestored] = useState<{ text: string; revision?: number } | undefined>(undefined);

  useEffect(() => {
    if (id === undefined) return;
    ctx.api.document(kind, id).then(
      (doc) => {
        text.current = doc.xml;
        setStored(doc);
      },
      (e: unknown) => setLoadError(messageOf(e)),
    );
    if (kind === 'timer') ctx.api.timerSchedule(id).then(setSchedule, () => setSchedule(undefined));
  }, [kind, id, loads]);

  const validate = async (xml: string): Promise<PlacedDiagnostic[]> => {
    const mine = ++checks.current;
    setCheck({ state: 'checking' });
    let items: ProblemItem[];
    try {
      const answer = await ctx.api.validate(kind, xml);
      items = answer.valid ? [] : answer.errors.length > 0 ? answer.errors : [{ message: answer.detail ?? `pap refuses this ${kind}` }];
    } catch (e) {
      // The check itself failed (pap unreachable, a solution the token does not cover…): said where problems go.
      items = e instanceof ApiError && e.errors.length > 0 ? [...e.errors] : [{ message: messageOf(e) }];
    }
    const diagnostics = placeDiagnostics(xml, items);
    if (mine === checks.current) setCheck(diagnostics.length === 0 ? { state: 'valid' } : { state: 'invalid', diagnostics });
    return diagnostics;
  };

  const save = async () => {
    setBusy(true);
    setSaveError('');
    try {
      if (id === undefined) {
        await ctx.api.add(kind, text.current);
        onDone(`Added ${declaredId(text.current) ?? `the ${kind}`}; it is not deployed yet`, undefined);
      } else {
        const answer = await ctx.api.replace(kind, id, text.current);
        ctx.sawRevision(answer.revision);
        onDone(answer.revision !== undefined ? `Replaced and re-deployed ${id}` : `Replaced ${id}`, answer.revision);
      }
    } catch (e) {
      setSaveError(messageOf(e));
      setReviewing(false);
    } finally {
      setBusy(false);
    }
  };

  if (loadError !== '') return <p class="error" role="alert">{loadError}</p>;
  if (id !== undefined && stored === undefined) return <p>Loading…</p>;

  const renamed = id !== undefined && declaredId(text.current) !== id;
  return (
    <section aria-labelledby="editor-title">
      <div class="heading">
        <h1 id="editor-title">{id === undefined ? `New ${kind}` : id}</h1>
        <a class="button secondary" href={`#/${kind === 'policy' ? 'policies' : 'timers'}`}>
          Back to the list
        </a>
      </div>
      {id !== undefined && <Tabs tab={tab} onTab={setTab} />}
      {restored !== undefined && (
        <p class="notice" role="status" data-testid="restored">
          {restored.text}
          {restored.revision !== undefined && (
            <>
              {' '}
              at revision {restored.revision}; <Propagation ctx={ctx} revision={restored.revision} />
            </>
          )}
        </p>
      )}
      {tab === 'history' && id !== undefined && (
        <div role="tabpanel" id="panel-history" aria-labelledby="tab-history">
          <DocumentHistory
            kind={kind}
            id={id}
            ctx={ctx}
            onRestored={(outcome) => {
              setRestored(outcome);
              setStored(undefined);
              setLoads((n) => n + 1);
              setTab('text');
            }}
          />
        </div>
      )}
      {/* The text stays mounted while the history is shown, so an unsaved edit survives a look at the history. */}
      <div role={id !== undefined ? 'tabpanel' : undefined} id="panel-text" aria-labelledby={id !== undefined ? 'tab-text' : undefined} hidden={tab !== 'text'}>
        {stored !== undefined && (
          <p class="meta">
            {stored.deployed ? 'Deployed: saving re-deploys it at once.' : 'Not deployed.'} Last changed{' '}
            <time dateTime={stored.updatedAt}>{new Date(stored.updatedAt).toLocaleString()}</time>.
          </p>
        )}
        <label id="xml-label" class="editor-label">
          {kind === 'policy' ? 'Policy' : 'Timer'} XML (checked by pap as you type)
        </label>
        <XmlEditor
          key={`${id ?? 'new'}#${loads}`}
          labelledBy="xml-label"
          initial={text.current}
          onChange={(value) => {
            text.current = value;
          }}
          check={validate}
          language={kind}
        />
        <div class="check" role="status" aria-live="polite" data-testid="check">
          {check.state === 'checking' && <span>Checking…</span>}
          {check.state === 'valid' && <span class="ok">pap accepts this {kind}.</span>}
          {check.state === 'invalid' && (
            <>
              <span class="error">
                {check.diagnostics.length} problem{check.diagnostics.length === 1 ? '' : 's'}:
              </span>
              <ul class="diagnostics">
                {check.diagnostics.map((d, index) => (
                  <li key={index}>
                    {d.line !== null ? <strong>line {d.line}: </strong> : null}
                    {d.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
        {kind === 'timer' && (
          // The cron as typed, in words; the next fire times are pap's for the stored cron, so only while it is unchanged.
          <div class="timer-reading" data-testid="schedule">
            <TimerScheduleCell cron={declaredCron(text.current) ?? ''} schedule={schedule?.cron === declaredCron(text.current) ? schedule : undefined} />
          </div>
        )}
        {saveError !== '' && (
          <p class="error" role="alert">
            {saveError}
          </p>
        )}
        <div class="actions">
          {id === undefined ? (
            <button type="button" disabled={busy} onClick={() => void save()}>
              Add {kind}
            </button>
          ) : (
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setSaveError('');
                setReviewing(true);
              }}
            >
              Review changes…
            </button>
          )}
        </div>
        {reviewing && stored !== undefined && (
          <Dialog title="Replace with this text?" confirmLabel="Replace" busy={busy} onConfirm={() => void save()} onCancel={() => setReviewing(false)}>
            {renamed && <p class="error">The id in the text differs from {id}; pap will refuse it.</p>}
            <p id="diff-label">{REVIEW_CAPTION}</p>
            <DiffView before={stored.xml} after={text.current} labelledBy="diff-label" />
          </Dialog>
        )}
      </div>
    </section>
  );
}

/** The tab bar of a stored document (WAI-ARIA tabs: the arrow keys move between them). */
function Tabs({ tab, onTab }: { tab: 'text' | 'history'; onTab: (tab: 'text' | 'history') => void }) {
  const tabs = [
    { name: 'text', label: 'Text' },
    { name: 'history', label: 'History' },
  ] as const;
  return (
    <div class="tabs" role="tablist" aria-label="Document">
      {tabs.map((t) => (
        <button
          key={t.name}
          type="button"
          role="tab"
          id={`tab-${t.name}`}
          aria-controls={`panel-${t.name}`}
          aria-selected={tab === t.name}
          tabIndex={tab === t.name ? 0 : -1}
          onClick={() => onTab(t.name)}
          onKeyDown={(e) => {
            if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
            const other = tab === 'text' ? 'history' : 'text';
            onTab(other);
            document.getElementById(`tab-${other}`)?.focus();
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
