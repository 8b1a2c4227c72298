import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import type { TimerSchedule } from '@custos/contracts';
import type { DocumentKindName, StoredDocument } from '../logic/api';
import { placeDiagnostics, type PlacedDiagnostic } from '../logic/diagnostics';
import { declaredCron, declaredId, documentTemplate } from '../logic/documents';
import { ApiError, type ProblemItem } from '../logic/problem';
import { Dialog } from '../ui/dialog';
import { DiffView } from '../ui/diff-view';
import { messageOf } from '../ui/messages';
import { TimerScheduleCell } from '../ui/timer-schedule';
import { XmlEditor } from '../ui/xml-editor';

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
  }, [kind, id]);

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
        key={id ?? 'new'}
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
          <p id="diff-label">Changes from the stored text (removed lines struck through, added lines marked):</p>
          <DiffView before={stored.xml} after={text.current} labelledBy="diff-label" />
        </Dialog>
      )}
    </section>
  );
}
