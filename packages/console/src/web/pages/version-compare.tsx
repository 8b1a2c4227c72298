import type { DocumentVersion } from '@custos/contracts';
import { useState } from 'preact/hooks';
import { pairCaption } from '../logic/versions';
import { DiffView } from '../ui/diff-view';
import { useText, type TextOf } from '../ui/version-text';

/** Two chosen versions of a document and the diff between their texts. */
export function VersionCompare({ versions, initial, textOf }: { versions: readonly DocumentVersion[]; initial: { from: number; to: number }; textOf: TextOf }) {
  const [from, setFrom] = useState(initial.from);
  const [to, setTo] = useState(initial.to);
  const before = useText(from, textOf);
  const after = useText(to, textOf);
  const error = before.error ?? after.error;
  return (
    <section class="compare" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare two versions</h2>
      <div class="pair">
        <VersionSelect id="compare-from" label="From version" versions={versions} value={from} onChange={setFrom} />
        <VersionSelect id="compare-to" label="To version" versions={versions} value={to} onChange={setTo} />
      </div>
      {error !== undefined ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : before.text === undefined || after.text === undefined ? (
        <p>Loading the texts…</p>
      ) : (
        <>
          <p id="compare-label">{pairCaption(from, to)}</p>
          <DiffView before={before.text} after={after.text} labelledBy="compare-label" />
        </>
      )}
    </section>
  );
}

function VersionSelect(props: { id: string; label: string; versions: readonly DocumentVersion[]; value: number; onChange: (n: number) => void }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={String(props.value)} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
        {props.versions.map((v) => (
          <option key={v.number} value={String(v.number)}>
            {v.number}
            {v.current ? ' (current)' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}
