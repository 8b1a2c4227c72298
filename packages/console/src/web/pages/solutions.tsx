import { useState } from 'preact/hooks';
import type { SolutionSettings } from '@custos/contracts';
import type { ConsoleContext } from '../context';
import { messageOf } from '../ui/messages';

/** What the selects offer: a value, or `''` for "not set" (the pdp's own setting applies). */
const DEFAULT_DECISIONS = ['', 'allow', 'inhibit'] as const;
const AUTHZEN_DEFAULTS = ['', 'deny', 'allow'] as const;

/** The settings with the "not set" choices left out, as pap takes them. */
function settingsOf(defaultDecision: string, authzenDefault: string): SolutionSettings {
  return {
    ...(defaultDecision === '' ? {} : { defaultDecision: defaultDecision as SolutionSettings['defaultDecision'] }),
    ...(authzenDefault === '' ? {} : { authzenDefault: authzenDefault as SolutionSettings['authzenDefault'] }),
  };
}

/**
 * A solution's settings (api.md, "Solution settings"): its default decision and its AuthZEN default, each either set
 * or left to the pdps' own. Saving one that changed is a new revision, which the later explanations wait for.
 */
export function SolutionsPage({ ctx }: { ctx: ConsoleContext }) {
  const [solution, setSolution] = useState('');
  const [loaded, setLoaded] = useState<string | undefined>(undefined);
  const [defaultDecision, setDefaultDecision] = useState('');
  const [authzenDefault, setAuthzenDefault] = useState('');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');

  const load = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await ctx.api.solutionSettings(solution.trim());
      setLoaded(answer.solution);
      setDefaultDecision(answer.settings.defaultDecision ?? '');
      setAuthzenDefault(answer.settings.authzenDefault ?? '');
      setStatus(`Settings of ${answer.solution} at revision ${answer.revision}.`);
      setError('');
    } catch (e) {
      // Nothing shown is of the solution asked for: neither the form nor the previous solution's revision.
      setLoaded(undefined);
      setStatus('');
      setError(messageOf(e));
    }
  };

  const save = async (event: Event) => {
    event.preventDefault();
    if (loaded === undefined) return;
    try {
      const answer = await ctx.api.setSolutionSettings(loaded, settingsOf(defaultDecision, authzenDefault));
      ctx.sawRevision(answer.revision);
      setStatus(answer.changed ? `Saved: revision ${answer.revision}, which every pdp switches to.` : `Nothing changed (revision ${answer.revision}).`);
      setError('');
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return (
    <section aria-labelledby="solutions-title">
      <h1 id="solutions-title">Solution settings</h1>
      <p class="meta">
        The decision when no mechanism decides, and the AuthZEN answer for an action no mechanism reacts to. "Not set"
        leaves it to each pdp (<code>DEFAULT_DECISION</code>, <code>PDP_AUTHZEN_DEFAULT</code>).
      </p>
      <form onSubmit={(e) => void load(e)}>
        <label for="solution-name">Solution</label>
        <input id="solution-name" value={solution} onInput={(e) => setSolution((e.target as HTMLInputElement).value)} required pattern="[a-z0-9._\-]+" />
        <button type="submit">Show</button>
      </form>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {loaded !== undefined && (
        <form onSubmit={(e) => void save(e)}>
          <Choice id="default-decision" label="Default decision" values={DEFAULT_DECISIONS} value={defaultDecision} onChange={setDefaultDecision} />
          <Choice id="authzen-default" label="AuthZEN default" values={AUTHZEN_DEFAULTS} value={authzenDefault} onChange={setAuthzenDefault} />
          <button type="submit">Save</button>
        </form>
      )}
      {status !== '' && <p role="status">{status}</p>}
    </section>
  );
}

/** One setting as a labelled select; `''` is "not set". */
function Choice(props: { id: string; label: string; values: readonly string[]; value: string; onChange: (value: string) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        {props.values.map((value) => (
          <option key={value} value={value}>
            {value === '' ? 'not set (the pdp’s)' : value}
          </option>
        ))}
      </select>
    </>
  );
}
