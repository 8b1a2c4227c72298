/** One field of a filter form: a text or time input, or a choice among values after "any" (the empty value). */
export interface FilterField<K extends string> {
  readonly name: K;
  readonly label: string;
  readonly placeholder?: string;
  readonly type?: 'datetime-local';
  readonly choices?: readonly string[];
}

interface FilterFormProps<K extends string, V extends Readonly<Record<K, string>>> {
  /** The form's accessible name. */
  label: string;
  /** The form's class (its layout) and the prefix of its fields' ids. */
  name: string;
  fields: ReadonlyArray<FilterField<K>>;
  values: V;
  onInput: (values: V) => void;
  onSubmit: () => void;
  submit: string;
  /** While a search runs: the button is disabled and says this instead. */
  busy?: string | false;
}

/** The filters of a searchable page (Audit, Decisions): a labelled control a field, applied when submitted. */
export function FilterForm<K extends string, V extends Readonly<Record<K, string>>>({ label, name, fields, values, onInput, onSubmit, submit, busy = false }: FilterFormProps<K, V>) {
  // A field's value is what its control offers: any text, or one of its choices (a narrower type of V's, say).
  const set = (field: K) => (e: { currentTarget: { value: string } }) => onInput({ ...values, [field]: e.currentTarget.value } as V);
  return (
    <form
      class={name}
      role="search"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {fields.map((field) => {
        const id = `${name}-${field.name}`;
        return (
          <div key={field.name}>
            <label for={id}>{field.label}</label>
            {field.choices === undefined ? (
              <input id={id} value={values[field.name]} placeholder={field.placeholder} onInput={set(field.name)} {...(field.type === undefined ? {} : { type: field.type, step: '1' })} />
            ) : (
              <select id={id} value={values[field.name]} onChange={set(field.name)}>
                <option value="">any</option>
                {field.choices.map((choice) => (
                  <option key={choice} value={choice}>
                    {choice}
                  </option>
                ))}
              </select>
            )}
          </div>
        );
      })}
      <div class="actions">
        <button type="submit" disabled={busy !== false}>
          {busy === false ? submit : busy}
        </button>
      </div>
    </form>
  );
}
