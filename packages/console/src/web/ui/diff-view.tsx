import { unifiedMergeView } from '@codemirror/merge';
import { xml } from '@codemirror/lang-xml';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';
import { cspNonce } from './csp-nonce';

/** The new text with what changed from the old one marked inline (a red bar beside deleted lines, a green one beside added lines; see DIFF_LEGEND). */
export function DiffView({ before, after, labelledBy }: { before: string; after: string; labelledBy: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (host.current === null) return undefined;
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: after,
        extensions: [
          cspNonce,
          basicSetup,
          xml(),
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-labelledby': labelledBy }),
          unifiedMergeView({ original: before, mergeControls: false, highlightChanges: true }),
        ],
      }),
    });
    return () => view.destroy();
  }, [before, after]);
  return <div class="editor diff" ref={host} />;
}
