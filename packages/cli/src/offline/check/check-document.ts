import { loadPolicy, loadTimer, timerScheduleDiagnostic, type CompiledPolicy, type Diagnostic, type TimerDocument } from '@custos/policy-engine';

export type DocumentKind = 'policy' | 'timer';

export type CheckedDocument =
  | { kind: 'policy'; ok: true; policy: CompiledPolicy }
  | { kind: 'timer'; ok: true; timer: TimerDocument }
  | { kind: DocumentKind; ok: false; diagnostics: Diagnostic[] };

/**
 * Checks one document as pap does when it is added (a timer must still fire): a `timer` root goes to the engine's timer reader, anything else
 * to the policy loader (which names a wrong root itself). Never throws for bad input.
 */
export function checkDocument(xml: string): CheckedDocument {
  if (rootName(xml) === 'timer') {
    const timer = loadTimer(xml);
    if (!timer.ok) return { kind: 'timer', ok: false, diagnostics: timer.diagnostics };
    // As pap does: a timer whose every fire time has passed would be deployed to do nothing.
    const schedule = timerScheduleDiagnostic(timer.timer, new Date());
    return schedule === null ? { kind: 'timer', ok: true, timer: timer.timer } : { kind: 'timer', ok: false, diagnostics: [schedule] };
  }
  const policy = loadPolicy(xml);
  return policy.ok ? { kind: 'policy', ok: true, policy: policy.policy } : { kind: 'policy', ok: false, diagnostics: policy.diagnostics };
}

const PROLOGUE = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*/;
const START_TAG = /^<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/;

/**
 * The local name of the root element, read from the text without parsing it (the engine's hardened reader does
 * the parsing). Null when the text does not begin with an element, e.g. with a DOCTYPE, which the loader refuses.
 */
export function rootName(xml: string): string | null {
  const prologue = PROLOGUE.exec(xml.startsWith('\uFEFF') ? xml.slice(1) : xml);
  const rest = xml.slice((xml.startsWith('\uFEFF') ? 1 : 0) + (prologue?.[0].length ?? 0));
  return START_TAG.exec(rest)?.[1] ?? null;
}
