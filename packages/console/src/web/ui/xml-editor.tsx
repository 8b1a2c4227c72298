import { xml } from '@codemirror/lang-xml';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';
import { cspNonce } from './csp-nonce';
import { policyLanguage, policyXmlSupport, type EditorLanguage } from './language-support';
import type { PlacedDiagnostic } from '../logic/diagnostics';

export interface XmlEditorProps {
  /** id of the visible label that names the editor. */
  labelledBy: string;
  initial: string;
  onChange: (text: string) => void;
  /** Checks the text; answers the problems to show inline (none: the text is fine). */
  check: (text: string) => Promise<PlacedDiagnostic[]>;
  /** The language it completes and explains on hover, once pap's description has arrived (none: plain XML). */
  language?: EditorLanguage;
}

/**
 * CodeMirror 6 with XML highlighting and pap's diagnostics inline, checked as the user types; for policies, element
 * and attribute completion with their help, from the language description pap serves.
 */
export function XmlEditor({ labelledBy, initial, onChange, check, language }: XmlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef({ onChange, check });
  latest.current = { onChange, check };

  useEffect(() => {
    if (host.current === null) return undefined;
    const source = async (view: EditorView): Promise<Diagnostic[]> => {
      const placed = await latest.current.check(view.state.doc.toString());
      const length = view.state.doc.length;
      return placed.map((d) => ({ from: Math.min(d.from, length), to: Math.min(d.to, length), severity: 'error', message: d.message }));
    };
    // Plain XML until the description arrives; then the same compartment holds the language-aware support.
    const support = new Compartment();
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: initial,
        extensions: [
          cspNonce,
          basicSetup,
          support.of(xml()),
          lintGutter(),
          linter(source, { delay: 400 }),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-labelledby': labelledBy, 'aria-multiline': 'true' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    let live = true;
    if (language === 'policy') {
      void policyLanguage().then((described) => {
        if (live && described !== null) view.dispatch({ effects: support.reconfigure(policyXmlSupport(described)) });
      });
    }
    return () => {
      live = false;
      view.destroy();
    };
    // The editor is made once per document; later text comes from the user.
  }, []);

  return <div class="editor" ref={host} />;
}
