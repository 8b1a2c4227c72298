import type { Component, Event, PepInterfaceDescription } from '@custos/contracts';
import { useEffect, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import type { ExplainResult } from '../logic/api';
import { buildEvent, fieldsForInterface, type ParameterField } from '../logic/event';
import { explanationTree } from '../logic/explanation';
import { ApiError, placeOf } from '../logic/problem';
import { messageOf } from '../ui/messages';
import { Tree } from '../ui/tree';

interface PepChoice {
  key: string;
  label: string;
  description: PepInterfaceDescription;
}

function pepChoices(components: readonly Component[]): PepChoice[] {
  return components.flatMap((c) =>
    c.componentInterfaces
      .filter((i): i is PepInterfaceDescription => i.type === 'PepInterfaceDescription')
      .map((i) => ({ key: `${c.id.identifier} ${i.methodName}`, label: `${i.methodName} (${c.id.identifier})`, description: i })),
  );
}

/** Why the event was not explained: the service's detail, then each problem at its field (`parameters[2].value`). */
interface Refusal {
  message: string;
  problems: Array<{ place: string; message: string }>;
}

function refusalOf(error: unknown): Refusal {
  if (!(error instanceof ApiError)) return { message: messageOf(error), problems: [] };
  return { message: error.message, problems: error.errors.map((item) => ({ place: placeOf(item), message: item.message })) };
}

export function PlaygroundPage({ ctx }: { ctx: ConsoleContext }) {
  const [choices, setChoices] = useState<PepChoice[]>([]);
  const [choice, setChoice] = useState('');
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [action, setAction] = useState('');
  const [fields, setFields] = useState<ParameterField[]>([{ name: '', type: '', text: '' }]);
  const [json, setJson] = useState('');
  const [result, setResult] = useState<{ event: Event; answer: ExplainResult } | undefined>(undefined);
  const [error, setError] = useState<Refusal | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    ctx.api.components().then(
      (components) => setChoices(pepChoices(components)),
      (e: unknown) => setError(refusalOf(e)),
    );
  }, []);

  const pick = (key: string) => {
    setChoice(key);
    const picked = choices.find((c) => c.key === key);
    if (picked === undefined) return;
    const form = fieldsForInterface(picked.description);
    setAction(form.action);
    setFields(form.fields.length > 0 ? form.fields : [{ name: '', type: '', text: '' }]);
  };
  const setField = (index: number, patch: Partial<ParameterField>) => setFields(fields.map((f, n) => (n === index ? { ...f, ...patch } : f)));

  const eventToSend = (): Event => {
    if (mode === 'form') return buildEvent(action, fields, Date.now());
    try {
      return JSON.parse(json) as Event;
    } catch (e) {
      throw new Error(`the event is not JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };

  const run = async (submit: SubmitEvent) => {
    submit.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const event = eventToSend();
      const answer = await ctx.api.explain(event, ctx.lastRevision);
      setResult({ event, answer });
    } catch (e) {
      setError(refusalOf(e));
      setResult(undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Playground</h1>
      <p class="meta">
        Runs an event through a pdp's explanation: nothing is recorded in the history and no PXP is called.
        {/* Revision 0 is the empty set (a component registration answers it): no change of yours to wait for. */}
        {ctx.lastRevision !== undefined && ctx.lastRevision > 0 && ` The pdp answers once it has revision ${ctx.lastRevision}, your last change.`}
      </p>
      <form onSubmit={(e) => void run(e)} aria-label="Event">
        <fieldset>
          <legend>Compose the event</legend>
          <div class="mode">
            <input id="mode-form" type="radio" name="mode" checked={mode === 'form'} onChange={() => setMode('form')} />
            <label for="mode-form">With a form</label>
            <input
              id="mode-json"
              type="radio"
              name="mode"
              checked={mode === 'json'}
              onChange={() => {
                if (json === '') {
                  try {
                    setJson(JSON.stringify(buildEvent(action, fields, Date.now()), null, 2));
                  } catch {
                    setJson('{\n  "actionId": { "scope": "acme", "action": "show-employee" },\n  "timestamp": 0,\n  "parameters": []\n}');
                  }
                }
                setMode('json');
              }}
            />
            <label for="mode-json">As JSON</label>
          </div>
          {mode === 'form' ? (
            <>
              <label for="pep-interface">PEP interface</label>
              <select id="pep-interface" value={choice} onChange={(e) => pick(e.currentTarget.value)}>
                <option value="">none: type the action below</option>
                {choices.map((c) => (
                  <option key={c.key} value={c.key}>
                    {c.label}
                  </option>
                ))}
              </select>
              <label for="event-action">Action</label>
              <input id="event-action" required value={action} placeholder="urn:action:acme:show-employee" onInput={(e) => setAction(e.currentTarget.value)} />
              {fields.map((f, index) => (
                <div class="parameter" key={index}>
                  <div>
                    <label for={`param-${index}-name`}>Parameter {index + 1} name</label>
                    <input id={`param-${index}-name`} value={f.name} onInput={(e) => setField(index, { name: e.currentTarget.value })} />
                  </div>
                  <div>
                    <label for={`param-${index}-type`}>Type</label>
                    <input id={`param-${index}-type`} value={f.type} placeholder="from the value" onInput={(e) => setField(index, { type: e.currentTarget.value })} />
                  </div>
                  <div class="wide">
                    <label for={`param-${index}-value`}>Value (JSON, or plain text)</label>
                    <textarea id={`param-${index}-value`} rows={2} value={f.text} onInput={(e) => setField(index, { text: e.currentTarget.value })} />
                  </div>
                </div>
              ))}
              <button type="button" class="secondary" onClick={() => setFields([...fields, { name: '', type: '', text: '' }])}>
                Add a parameter
              </button>
            </>
          ) : (
            <>
              <label for="event-json">Event (JSON, api.md §3)</label>
              <textarea id="event-json" rows={12} class="code" value={json} onInput={(e) => setJson(e.currentTarget.value)} />
            </>
          )}
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Running…' : 'Run the event'}
          </button>
        </div>
      </form>
      {error !== undefined && (
        <div class="refusal" role="alert">
          <p class="error">{error.message}</p>
          {error.problems.length > 0 && (
            <ul>
              {error.problems.map((p, index) => (
                <li key={index}>
                  {p.place !== '' && <code>{p.place}</code>}
                  {p.place !== '' && ': '}
                  {p.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {result !== undefined && <Outcome result={result} />}
    </section>
  );
}

function Outcome({ result }: { result: { event: Event; answer: ExplainResult } }) {
  const { decision, modifiedEvent, modifyError } = result.answer;
  return (
    <section class="outcome" aria-labelledby="outcome-title" data-testid="outcome">
      <h2 id="outcome-title">
        The event is <span class={decision.eventAllowed ? 'allow' : 'inhibit'}>{decision.eventAllowed ? 'allowed' : 'inhibited'}</span>
      </h2>
      <Tree node={explanationTree(decision)} />
      {decision.eventAllowed && decision.modifiers.length > 0 && (
        <>
          <h3>The event after the modifiers</h3>
          {modifyError !== null ? <p class="error">{modifyError}</p> : <pre class="code">{JSON.stringify(modifiedEvent, null, 2)}</pre>}
        </>
      )}
      <details>
        <summary>The event sent</summary>
        <pre class="code">{JSON.stringify(result.event, null, 2)}</pre>
      </details>
    </section>
  );
}
