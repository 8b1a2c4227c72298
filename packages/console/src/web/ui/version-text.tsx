import { useEffect, useState } from 'preact/hooks';
import { messageOf } from './messages';

/** A version's text by its number (each asked for once: versions never change). */
export type TextOf = (n: number) => Promise<string>;

/** A text of a version, asked for once and shown when it arrives (or its error). */
export function useText(n: number, textOf: TextOf): { text?: string; error?: string } {
  const [state, setState] = useState<{ text?: string; error?: string }>({});
  useEffect(() => {
    let live = true;
    setState({});
    textOf(n).then(
      (text) => live && setState({ text }),
      (e: unknown) => live && setState({ error: messageOf(e) }),
    );
    return () => {
      live = false;
    };
  }, [n]);
  return state;
}

/** A version's text as stored, under its own heading. */
export function VersionText({ n, textOf, onClose }: { n: number; textOf: TextOf; onClose: () => void }) {
  const { text, error } = useText(n, textOf);
  return (
    <section class="version-text" aria-labelledby="version-text-title">
      <div class="heading">
        <h2 id="version-text-title">The text of version {n}</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Hide
        </button>
      </div>
      {error !== undefined ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : (
        <pre class="code" data-testid="version-text">
          {text ?? 'Loading…'}
        </pre>
      )}
    </section>
  );
}
