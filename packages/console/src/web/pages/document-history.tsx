import type { DocumentVersions } from '@custos/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import type { DocumentKindName } from '../logic/api';
import { authorOf, initialPair, restoreOutcome } from '../logic/versions';
import { DataTable } from '../ui/data-table';
import { Dialog } from '../ui/dialog';
import { DiffView } from '../ui/diff-view';
import { messageOf } from '../ui/messages';
import { useText, VersionText, type TextOf } from '../ui/version-text';
import { VersionCompare } from './version-compare';

interface Props {
  kind: DocumentKindName;
  id: string;
  ctx: ConsoleContext;
  /** After a restore: what to say, and the revision it took effect at when the deployed set changed. */
  onRestored: (outcome: { text: string; revision?: number }) => void;
}

/**
 * A document's history tab: its versions (who stored each, when, with which request), a version's text, a diff of
 * two, and "restore" with a confirmation that shows what the restore changes.
 */
export function DocumentHistory({ kind, id, ctx, onRestored }: Props) {
  const [history, setHistory] = useState<DocumentVersions | undefined>(undefined);
  const [error, setError] = useState('');
  const [shown, setShown] = useState<number | undefined>(undefined);
  const [restoring, setRestoring] = useState<number | undefined>(undefined);
  const [deploy, setDeploy] = useState(false);
  const [busy, setBusy] = useState(false);
  // Texts by version number: versions never change, so each is asked for once.
  const texts = useRef(new Map<number, Promise<string>>());
  const textOf: TextOf = (n) => {
    let text = texts.current.get(n);
    if (text === undefined) {
      text = ctx.api.version(kind, id, n).then((v) => v.xml);
      // A failed answer is not kept: the next look asks again.
      text.catch(() => texts.current.delete(n));
      texts.current.set(n, text);
    }
    return text;
  };

  useEffect(() => {
    ctx.api.versions(kind, id).then(setHistory, (e: unknown) => setError(messageOf(e)));
  }, [kind, id]);

  const restore = async () => {
    if (restoring === undefined) return;
    setBusy(true);
    try {
      const answer = await ctx.api.restore(kind, id, restoring, deploy);
      ctx.sawRevision(answer.changed ? answer.revision : undefined);
      onRestored(restoreOutcome(id, restoring, answer));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
      setRestoring(undefined);
    }
  };

  if (history === undefined) {
    return error !== '' ? (
      <p class="error" role="alert">
        {error}
      </p>
    ) : (
      <p>Loading the versions…</p>
    );
  }
  const versions = history.versions;
  const current = versions.find((v) => v.current);
  const deployed = versions.some((v) => v.deployed);
  const pair = initialPair(versions);
  return (
    <div class="history">
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <DataTable caption={`Versions of ${id}`} columns={['Version', 'Stored by', 'When', 'Request id', 'State', 'Actions']} stack>
        {[...versions].reverse().map((v) => (
          <tr key={v.number} aria-current={v.current ? 'true' : undefined}>
            <td data-label="Version">{v.number}</td>
            <td data-label="Stored by">{authorOf(v)}</td>
            <td data-label="When">
              <time dateTime={v.createdAt}>{new Date(v.createdAt).toLocaleString()}</time>
            </td>
            <td data-label="Request id">
              <code>{v.requestId ?? '—'}</code>
            </td>
            <td data-label="State">
              {v.current && <span class="badge">current</span>} {v.deployed && <span class="badge on">deployed</span>}
            </td>
            <td data-label="Actions">
              <div class="row-actions">
                <button type="button" class="secondary" aria-label={`Show version ${v.number}`} onClick={() => setShown(v.number)}>
                  Show
                </button>
                {!v.current && (
                  <button
                    type="button"
                    aria-label={`Restore version ${v.number}`}
                    onClick={() => {
                      setError('');
                      setDeploy(false);
                      setRestoring(v.number);
                    }}
                  >
                    Restore…
                  </button>
                )}
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
      {shown !== undefined && <VersionText key={shown} n={shown} textOf={textOf} onClose={() => setShown(undefined)} />}
      {pair !== undefined && versions.length > 1 && <VersionCompare versions={versions} initial={pair} textOf={textOf} />}
      {restoring !== undefined && current !== undefined && (
        <Dialog title={`Restore version ${restoring}?`} confirmLabel="Restore" busy={busy} onConfirm={() => void restore()} onCancel={() => setRestoring(undefined)}>
          <p>
            Its text becomes version {current.number + 1}; the versions in between stay in the history.
          </p>
          {deployed ? (
            <p>This {kind} is deployed: the pdps switch to the restored text at once, in one revision.</p>
          ) : (
            <p class="check-field">
              <input id="restore-deploy" type="checkbox" checked={deploy} onChange={(e) => setDeploy(e.currentTarget.checked)} />
              <label for="restore-deploy">Deploy it too (one revision with the restore)</label>
            </p>
          )}
          <RestoreDiff current={current.number} restoring={restoring} textOf={textOf} />
        </Dialog>
      )}
    </div>
  );
}

/** In the restore dialog: what the restore changes, from the current text to the restored one. */
function RestoreDiff({ current, restoring, textOf }: { current: number; restoring: number; textOf: TextOf }) {
  const now = useText(current, textOf);
  const then = useText(restoring, textOf);
  const error = now.error ?? then.error;
  if (error !== undefined) {
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  }
  if (now.text === undefined || then.text === undefined) return <p>Loading the texts…</p>;
  return (
    <>
      <p id="restore-diff-label">
        Changes from the current text (version {current}) to version {restoring}:
      </p>
      <DiffView before={now.text} after={then.text} labelledBy="restore-diff-label" />
    </>
  );
}
