import { EditorView } from '@codemirror/view';

/** The style nonce pap put in this page's CSP and in its `csp-nonce` meta element (none when served otherwise). */
const nonce = document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content') ?? '';

/** Lets CodeMirror's style elements pass the page's CSP. */
export const cspNonce = EditorView.cspNonce.of(nonce);
