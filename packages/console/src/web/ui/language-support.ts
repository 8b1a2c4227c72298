import { xml } from '@codemirror/lang-xml';
import type { Extension } from '@codemirror/state';
import { hoverTooltip } from '@codemirror/view';
import type { PolicyLanguage } from '@custos/contracts';
import { completionSchema, fetchPolicyLanguage, helpAt } from '../logic/language';

/** Which language the editor knows: policies get completion and help; timers (and anything else) plain XML. */
export type EditorLanguage = 'policy' | 'timer';

let loading: Promise<PolicyLanguage | null> | null = null;

/** Characters read on each side of the pointer for its help. */
const WINDOW = 4096;

/**
 * pap's description of the policy language, asked for once per page (it changes only with pap's version); when it
 * could not be had, the next editor asks again.
 */
export function policyLanguage(): Promise<PolicyLanguage | null> {
  const asked = (loading ??= fetchPolicyLanguage((path) => fetch(path, { redirect: 'error' })));
  void asked.then((described) => {
    if (described === null && loading === asked) loading = null;
  });
  return asked;
}

/** XML with completion of the language's elements and attributes, and their help on hover. */
export function policyXmlSupport(language: PolicyLanguage): Extension {
  const help = hoverTooltip((view, pos) => {
    // The text around the pointer is enough (a start tag with its attributes), not the whole document at every rest.
    const start = Math.max(0, pos - WINDOW);
    const found = helpAt(language, view.state.doc.sliceString(start, Math.min(view.state.doc.length, pos + WINDOW)), pos - start);
    if (found === null) return null;
    return {
      pos: start + found.from,
      end: start + found.to,
      above: true,
      create: () => {
        const dom = document.createElement('div');
        dom.className = 'language-help';
        dom.setAttribute('role', 'tooltip');
        const title = dom.appendChild(document.createElement('strong'));
        title.textContent = found.title;
        dom.appendChild(document.createElement('p')).textContent = found.doc;
        if (found.note !== null) dom.appendChild(document.createElement('p')).textContent = found.note;
        return { dom };
      },
    };
  });
  return [xml({ elements: completionSchema(language) }), help];
}
