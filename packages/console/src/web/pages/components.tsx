import type { Component } from '@custos/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleContext } from '../context';
import { componentOf, emptyInterface, PARAMETER_SYNTAX, type ComponentForm, type InterfaceForm } from '../logic/component-form';
import { registrationWarnings, type RegistrationWarnings } from '../logic/registration-warnings';
import { DataTable } from '../ui/data-table';
import { Dialog } from '../ui/dialog';
import { messageOf } from '../ui/messages';

export function ComponentsPage({ ctx }: { ctx: ConsoleContext }) {
  const [components, setComponents] = useState<Component[] | undefined>(undefined);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [removing, setRemoving] = useState<string | undefined>(undefined);

  const load = async () => {
    try {
      setComponents(await ctx.api.components());
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => {
    void load();
  }, []);

  return (
    <section aria-labelledby="components-title">
      <h1 id="components-title">Components</h1>
      <p class="meta">Registered enforcement points (PEP), information points (PIP) and execution points (PXP) with their interfaces.</p>
      {notice !== '' && <p class="notice" role="status">{notice}</p>}
      {error !== '' && <p class="error" role="alert">{error}</p>}
      {components === undefined ? (
        <p>Loading…</p>
      ) : components.length === 0 ? (
        <p>No component registered yet.</p>
      ) : (
        <ul class="cards">
          {components.map((c) => (
            <li key={c.id.identifier} class="card">
              <h2>
                <span class="badge">{c.id.componentType}</span> {c.id.identifier}
              </h2>
              <p class="meta">{c.urls.join(', ')}</p>
              <DataTable caption={`Interfaces of ${c.id.identifier}`} columns={['Method', c.id.componentType === 'PEP' ? 'Event' : 'Returns', 'Parameters', 'Description']}>
                {c.componentInterfaces.map((i) => (
                  <tr key={i.methodName}>
                    <td>
                      <code>{i.methodName}</code>
                    </td>
                    <td>
                      {i.type === 'PepInterfaceDescription'
                        ? `${i.event.platform}/${i.event.context}/${i.event.action}${i.preventive ? ' (preventive)' : ''}`
                        : i.returnType}
                    </td>
                    <td>
                      {/* One a line, in the form's own syntax with the description, so what was registered can be checked. */}
                      {i.parameters.map((p) => (
                        <div key={p.name} class="parameter-line">
                          {`${p.name}: ${p.type}${p.description !== '' ? ` - ${p.description}` : ''}${'mandatory' in p && p.mandatory === true ? ' (mandatory)' : ''}`}
                        </div>
                      ))}
                    </td>
                    <td>{i.description ?? ''}</td>
                  </tr>
                ))}
              </DataTable>
              <button type="button" class="danger" aria-label={`Unregister ${c.id.identifier}`} onClick={() => setRemoving(c.id.identifier)}>
                Unregister
              </button>
            </li>
          ))}
        </ul>
      )}
      <RegisterForm
        ctx={ctx}
        onRegistered={(id) => {
          setNotice(`Registered ${id}`);
          void load();
        }}
      />
      {removing !== undefined && (
        <Dialog
          title="Unregister component?"
          confirmLabel="Unregister"
          danger
          onCancel={() => setRemoving(undefined)}
          onConfirm={() => {
            const id = removing;
            setRemoving(undefined);
            ctx.api.unregisterComponent(id).then(
              (answer) => {
                ctx.sawRevision(answer.revision);
                setNotice(answer.result ? `Unregistered ${id}` : `${id} was not registered`);
                void load();
              },
              (e: unknown) => setError(messageOf(e)),
            );
          }}
        >
          <p>
            <code>{removing}</code> is removed; policies that use it fail closed.
          </p>
        </Dialog>
      )}
    </section>
  );
}

const emptyForm = (): ComponentForm => ({ type: 'PEP', solution: '', name: '', urls: '', interfaces: [emptyInterface()] });

function RegisterForm({ ctx, onRegistered }: { ctx: ConsoleContext; onRegistered: (id: string) => void }) {
  const [form, setForm] = useState<ComponentForm>(emptyForm);
  const [error, setError] = useState('');
  const [warned, setWarned] = useState<{ id: string; warnings: RegistrationWarnings } | undefined>(undefined);
  const submitButton = useRef<HTMLButtonElement>(null);
  const setInterface = (index: number, patch: Partial<InterfaceForm>) =>
    setForm({ ...form, interfaces: form.interfaces.map((i, n) => (n === index ? { ...i, ...patch } : i)) });

  const submit = async (event: Event) => {
    event.preventDefault();
    setError('');
    setWarned(undefined);
    try {
      const component = componentOf(form);
      const answer = await ctx.api.registerComponent(component);
      ctx.sawRevision(answer.revision);
      setForm(emptyForm());
      // Shown here, where the user pressed Register: the form is emptied, so the warnings name the URLs themselves.
      if (answer.warnings.length > 0) setWarned({ id: component.id.identifier, warnings: registrationWarnings(component, answer.warnings) });
      onRegistered(component.id.identifier);
    } catch (e) {
      setError(messageOf(e));
    }
  };

  const pep = form.type === 'PEP';
  return (
    <form class="register" aria-labelledby="register-title" onSubmit={(e) => void submit(e)}>
      <h2 id="register-title">Register a component</h2>
      <div class="grid">
        <div>
          <label for="component-type">Type</label>
          <select id="component-type" value={form.type} onChange={(e) => setForm({ ...form, type: e.currentTarget.value as ComponentForm['type'] })}>
            <option value="PEP">PEP — enforcement point</option>
            <option value="PIP">PIP — information point</option>
            <option value="PXP">PXP — execution point</option>
          </select>
        </div>
        <div>
          <label for="component-solution">Solution</label>
          <input id="component-solution" required value={form.solution} placeholder="acme" onInput={(e) => setForm({ ...form, solution: e.currentTarget.value })} />
        </div>
        <div>
          <label for="component-name">Name</label>
          <input id="component-name" required value={form.name} placeholder="hr-portal" onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
        </div>
        <div class="wide">
          <label for="component-urls">URLs (one per line)</label>
          <textarea id="component-urls" rows={2} value={form.urls} onInput={(e) => setForm({ ...form, urls: e.currentTarget.value })} />
        </div>
      </div>
      {form.interfaces.map((i, index) => {
        const prefix = `interface-${index}`;
        return (
          <fieldset key={index}>
            <legend>Interface {index + 1}</legend>
            <div class="grid">
              <div>
                <label for={`${prefix}-method`}>Method name</label>
                <input
                  id={`${prefix}-method`}
                  required
                  value={i.methodName}
                  placeholder={pep ? 'urn:action:acme:show-employee' : form.type === 'PIP' ? 'urn:info:acme:getRole' : 'urn:action:acme:notify'}
                  onInput={(e) => setInterface(index, { methodName: e.currentTarget.value })}
                />
              </div>
              <div>
                <label for={`${prefix}-returns`}>Return type</label>
                <input id={`${prefix}-returns`} required value={i.returnType} onInput={(e) => setInterface(index, { returnType: e.currentTarget.value })} />
              </div>
              <div class="wide">
                <label for={`${prefix}-description`}>Description</label>
                <input id={`${prefix}-description`} value={i.description} onInput={(e) => setInterface(index, { description: e.currentTarget.value })} />
              </div>
              {pep && (
                <>
                  <div>
                    <label for={`${prefix}-platform`}>Event platform</label>
                    <input id={`${prefix}-platform`} required value={i.platform} onInput={(e) => setInterface(index, { platform: e.currentTarget.value })} />
                  </div>
                  <div>
                    <label for={`${prefix}-context`}>Event context</label>
                    <input id={`${prefix}-context`} required value={i.context} onInput={(e) => setInterface(index, { context: e.currentTarget.value })} />
                  </div>
                  <div>
                    <label for={`${prefix}-action`}>Event action</label>
                    <input id={`${prefix}-action`} required value={i.action} onInput={(e) => setInterface(index, { action: e.currentTarget.value })} />
                  </div>
                  <div class="check-field">
                    <input id={`${prefix}-preventive`} type="checkbox" checked={i.preventive} onChange={(e) => setInterface(index, { preventive: e.currentTarget.checked })} />
                    <label for={`${prefix}-preventive`}>Preventive (waits for the decision)</label>
                  </div>
                </>
              )}
              <div class="wide">
                <label for={`${prefix}-parameters`}>
                  Parameters, one per line: <code>{PARAMETER_SYNTAX}</code> (any dash with spaces around it)
                  {pep ? '' : '; a ! after the name marks it mandatory'}
                </label>
                <textarea id={`${prefix}-parameters`} rows={3} value={i.parameters} onInput={(e) => setInterface(index, { parameters: e.currentTarget.value })} />
              </div>
            </div>
            {form.interfaces.length > 1 && (
              <button type="button" class="secondary" onClick={() => setForm({ ...form, interfaces: form.interfaces.filter((_, n) => n !== index) })}>
                Remove interface {index + 1}
              </button>
            )}
          </fieldset>
        );
      })}
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setForm({ ...form, interfaces: [...form.interfaces, emptyInterface()] })}>
          Add an interface
        </button>
        <button type="submit" ref={submitButton}>
          Register
        </button>
      </div>
      {/* Always present, so that screen readers announce the warnings when they are put in. */}
      <div role="status">
        {warned !== undefined && (
          <WarningsPanel
            id={warned.id}
            warnings={warned.warnings}
            onDismiss={() => {
              setWarned(undefined);
              submitButton.current?.focus();
            }}
          />
        )}
      </div>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** A successful registration's warnings: the component is registered, but may not work as it is. */
function WarningsPanel({ id, warnings, onDismiss }: { id: string; warnings: RegistrationWarnings; onDismiss: () => void }) {
  const count = warnings.items.length;
  return (
    <section class="warnings" aria-labelledby="register-warnings-title">
      <h3 id="register-warnings-title">
        <span aria-hidden="true">⚠ </span>
        Registered {id}, with {count === 1 ? 'a warning' : `${count} warnings`}
      </h3>
      <ul>
        {warnings.items.map((w, index) => (
          <li key={index}>
            <strong>Warning{w.path === undefined ? '' : ' at '}</strong>
            {w.path !== undefined && <code>{w.path}</code>}
            {w.url !== undefined && (
              <>
                {' '}
                (<code class="url">{w.url}</code>)
              </>
            )}
            : {w.summary}.{w.detail !== undefined && <span class="detail">pap says: {w.detail}</span>}
          </li>
        ))}
      </ul>
      {warnings.advice.map((advice) => (
        <p key={advice}>{advice}</p>
      ))}
      <button type="button" class="secondary" onClick={onDismiss}>
        Dismiss the warnings
      </button>
    </section>
  );
}
